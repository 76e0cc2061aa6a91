"""The CUDA passes compose without loss (issue 31, item 2).

transfers leaves copies as written when its plan merges none (moving them saved nothing and
could put a copy between two launches fuse would fuse), and the pipeline's order (fuse, then
transfers: registry.PIPELINE_ORDER) reaches the fewest launches and copies of any order on
gemver, where transfers then fuse lost a fusion (pooled buffers hide from fuse that they are
distinct). scripts/compare_pass_orders.py prints the comparison over every sample and corpus
program (docs/benchmarks.md); here one program stands for it, the whole table takes minutes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from s2s.driver import RunOptions
from s2s.edits import EditSet
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.core.toolchain import Toolchain
from s2s.transform import registry
from s2s.transform.transfers import run_transfers
from s2s.verify.differential import DEFAULT_PASSES
from s2s.verify.pass_orders import order_counts

REPO = Path(__file__).resolve().parents[2]

NOTHING_MERGES = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void twice(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = 2.0f * a[i];
}
__global__ void bump(float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = b[i] + 1.0f;
}
int main()
{
    int n = 1 << 12;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h_a[i] = (float)i;
    float *d_a, *d_b;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    twice<<<(n + 255) / 256, 256>>>(d_a, n);
    cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        h_b[i] = h_a[i] * h_a[i];
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    bump<<<(n + 255) / 256, 256>>>(d_b, n);
    cudaMemcpy(h_b, d_b, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h_a[n - 1], h_b[n - 1]);
    cudaFree(d_a);
    cudaFree(d_b);
    free(h_a);
    free(h_b);
    return 0;
}
"""


def test_copies_that_merge_nothing_stay_as_written(load_source):
    """Four copies that cannot merge (each direction at another time): the allocations still
    pool, the copies are not touched (before: each was removed and written again, "4
    cudaMemcpy calls become 4")."""
    loaded = load_source(NOTHING_MERGES, "prog.cu")
    output = run_transfers(loaded)
    copies = [c.span for c in loaded.model.api_calls if c.category == "memcpy"]
    assert len(copies) == 4
    touched = [e for e in output.edits for span in copies
               if e.offset < span.end and span.start < e.end + (e.length == 0)]
    assert touched == []
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    assert after.count("cudaMalloc(") == 1 and after.count("cudaMemcpy(") == 4
    notes = [d.message for d in output.diagnostics if d.id == "transfers-explain"]
    assert any("the 4 cudaMemcpy calls stay as written (merging would leave 4), 2 cudaMalloc "
               "calls 1" in m for m in notes), notes


@pytest.mark.slow
def test_the_pipeline_order_reaches_the_best_order_on_gemver():
    pipeline = tuple(n for n in DEFAULT_PASSES["cuda"] if n in ("transfers", "fuse"))
    assert pipeline == tuple(n for n in registry.PIPELINE_ORDER if n in ("transfers", "fuse"))
    shim = Toolchain(cuda_path=None, omp_include=None)          # the bundled CUDA headers: fast
    options = RunOptions(parse=ParseOptions(toolchain=shim))
    orders = {"transfers": ("transfers",), "fuse": ("fuse",),
              "transfers,fuse": ("transfers", "fuse"), "pipeline": pipeline}
    found = order_counts(str(REPO / "samples" / "cuda" / "gemver" / "gemver.cu"), options, orders)
    assert (found["original"].launches, found["original"].copies) == (4, 9)
    best_launches = min(c.launches for c in found.values())
    best_copies = min(c.copies for c in found.values())
    assert (found["pipeline"].launches, found["pipeline"].copies) == (best_launches, best_copies)
    assert (best_launches, best_copies) == (2, 2)
    # the order the pipeline had before issue 31 loses a fusion here
    assert found["transfers,fuse"].launches == 3
