"""A chain of passes gives the files an earlier pass generates to the later passes' parses
(issue 29: ``s2s verify --passes mgpu,transfers`` failed with "'prog.cu.s2s_mgpu.h' file not
found": mgpu's rewrite includes its kernel table, which exists only in memory until the
chain's output is written)."""

from __future__ import annotations

from s2s.frontend.core import parse_reuse
from s2s.frontend.core.parse import ParseOptions
from s2s.transform import registry
from s2s.wrapper.rewrite import chain_passes

PROGRAM = b"""#include <cstdio>
#define N 1024
__global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= s; }
int main() {
  static float h[N];
  float *d;
  cudaMalloc(&d, N * sizeof(float));
  cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<N / 256, 256>>>(d, 2.0f, N);
  cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\\n", h[N - 1]);
  cudaFree(d);
  return 0;
}
"""


def test_a_later_pass_parses_the_table_an_earlier_pass_generated(tmp_path, monkeypatch):
    from s2s.driver import RunOptions

    (tmp_path / "prog.cu").write_bytes(PROGRAM)
    monkeypatch.chdir(tmp_path)
    seen = []
    transfers = registry.get("transfers")

    def counted(loaded):
        seen.append((parse_reuse.overlay(), loaded.diagnostics))
        return transfers(loaded)
    counted.__module__, counted.__qualname__ = transfers.__module__, transfers.__qualname__

    options = RunOptions(parse=ParseOptions(language="cuda", cache=False))
    chained = chain_passes("prog.cu", options, [("mgpu", registry.get("mgpu")),
                                                 ("transfers", counted)])
    (table,) = chained.generated
    assert table[0].endswith("prog.cu.s2s_mgpu.h") and b"s2s_mgpu_this_unit" in table[1]
    assert b'#include "prog.cu.s2s_mgpu.h"' in chained.after
    # transfers loaded mgpu's rewrite, the table read from memory, without an error
    ((overlay, said),) = seen
    assert overlay == (("./prog.cu.s2s_mgpu.h", table[1]),)
    assert not any(d.is_error for d in said)
    # and says why it plans nothing: the copies go to the runtime (before: silence)
    [warning] = [d for d in chained.diagnostics if d.id == "transfers-unsupported-call"]
    assert warning.message.startswith(
        "prog.cu, in the code the earlier passes produced (line 13): 'cudaMalloc' here is "
        "s2s_mgpu::Malloc, the s2s multi-GPU runtime's (the file is an s2s mgpu rewrite: its 4 CUDA "
        "memory calls go to the runtime"), warning.message
    assert "run transfers before mgpu" in warning.message
    assert not (tmp_path / "prog.cu.s2s_mgpu.h").exists()    # (nothing written by the chain)
    assert parse_reuse.overlay() == ()
