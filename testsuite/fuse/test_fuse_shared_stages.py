"""One kernel launched several times in a fused group (issue 29, item 3 of cuda29o): the
fused kernel defines one ``__device__`` stage per distinct stage text, not one per launch;
launches whose data plans differ keep stages of their own. Outputs checked by replay."""

from __future__ import annotations

import pytest

from runtime.api import Runtime
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay

#: ``relax`` three times from the same input: the second and third launches have one plan
#: (``a`` read from the register the first loaded); ``mix`` reads all three results
FANOUT = """#include <cstdio>
#include <cuda_runtime.h>
__global__ void relax(const float *in, float *out, float w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * w + 1.0f;
}
int main()
{
    const int n = 1000;
    static float h[1000];
    for (int i = 0; i < n; ++i) h[i] = 0.5f * i;
    float *a, *b, *c, *d;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
    relax<<<(n + 127) / 128, 128>>>(a, b, 0.5f, n);
    relax<<<(n + 127) / 128, 128>>>(a, c, 0.25f, n);
    relax<<<(n + 127) / 128, 128>>>(a, d, 2.0f, n);
    cudaMemcpy(h, b, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\\n", h[7]);
    cudaMemcpy(h, c, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\\n", h[9]);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\\n", h[n - 1]);
    return 0;
}
"""


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


def test_identical_stages_of_one_kernel_are_defined_once(tmp_path, runtime):
    path = tmp_path / "fanout.cu"
    path.write_text(FANOUT)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and not result.incomplete
    after = result.change.after.decode()
    assert after.count("s2s_fused_0<<<") == 1
    defined = [line for line in after.splitlines() if "__forceinline__ void s2s_fused_0_stage" in line]
    # the first launch loads a[i] into the register, the other two read the register
    assert len(defined) == 2, defined
    assert after.count("s2s_fused_0_stage1_relax(a, c,") == 1
    assert after.count("s2s_fused_0_stage1_relax(a, d,") == 1
    before = replay(str(path), runtime=runtime, module_source=result.change.after, traffic=False)
    fused = replay(str(path), source=result.change.after, runtime=runtime, traffic=False)
    assert len(fused.launches) == len(before.launches) - 2
    assert compare(before, fused) == []


def test_stages_with_different_plans_stay_apart(tmp_path):
    """A chain a -> b -> c -> d: each launch has its own register plan, three stages."""
    chain = FANOUT.replace("(a, c, 0.25f, n)", "(b, c, 0.25f, n)").replace(
        "(a, d, 2.0f, n)", "(c, d, 2.0f, n)")
    path = tmp_path / "chain.cu"
    path.write_text(chain)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success)
    after = result.change.after.decode()
    assert after.count("s2s_fused_0<<<") == 1
    assert sum("__forceinline__ void s2s_fused_0_stage" in line for line in after.splitlines()) == 3
