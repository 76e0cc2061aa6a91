"""cuda-samples boxFilter's y pass (issue 29): each thread walks a column through a device
function given ``&out[x]``, so threads of different blocks write one element only when the
grid has more threads than a row has elements. The kernel's reason must name an element two
blocks really write on the sample launch; it named ``out[0]``, which thread 0 alone writes
(the witness was any element of a clashing thread, not the element the two threads meet in)."""

from __future__ import annotations

from s2s import isl_helpers
from s2s.analysis.fuse.kernels import kernel_facts
from s2s.analysis.kernel.access import sample_overrides
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load

COLUMNS = """#include <cuda_runtime.h>
__device__ void walk_column(const float *src, float *dst, int w, int h, int r)
{
    float acc = 0.0f;
    for (int y = 0; y <= r; y++)
        acc += src[y * w];
    dst[0] = acc;
    for (int y = 1; y < h; y++) {
        acc += src[y * w] - src[(y - 1) * w];
        dst[y * w] = acc;
    }
}
__global__ void column_pass(const float *in, float *out, int w, int h, int r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    walk_column(&in[x], &out[x], w, h, r);
}
"""


def _writers(values: dict) -> dict[int, set[tuple[int, int]]]:
    """Element of ``out`` -> the (block, thread) pairs writing it, by running the kernel's
    index arithmetic over the launch (blocks and threads in x only: the sample's y, z are 1)."""
    w, h, bdx = values["w"], values["h"], values["bdx"]
    writers: dict[int, set[tuple[int, int]]] = {}
    for block in range(values["gdx"]):
        for thread in range(bdx):
            x = block * bdx + thread
            for y in range(h):
                writers.setdefault(x + y * w, set()).add((block, thread))
    return writers


def test_the_conflict_names_an_element_two_blocks_write(tmp_path):
    path = tmp_path / "columns.cu"
    path.write_text(COLUMNS)
    facts = kernel_facts(load(str(path), ParseOptions()).model)["column_pass"]
    records = [r for r in facts.records if r.array == "out"]
    kind, element, values = isl_helpers.write_conflicts(facts.access.array("out").write,
                                                        sample_overrides(records))
    assert kind == "blocks" and (values["gdy"], values["bdy"]) == (1, 1), values
    writers = _writers(values)
    assert len({block for block, _thread in writers[element]}) >= 2, (element, writers[element])
    assert len(writers[0]) == 1                       # the old witness: thread 0 alone
    assert facts.kind == "other"                      # the verdict stands
    assert facts.detail == (f"threads of different blocks write out[{element}] on a sample launch: "
                            "whether threads of different blocks write one element depends on "
                            "the launch's sizes (large ones do not), which fuse does not check")
