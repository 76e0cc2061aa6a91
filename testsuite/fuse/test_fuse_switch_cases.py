"""Launches in one ``case`` of a switch (issue 29: cuda-samples' launches sit in branches):
the statements after a ``case`` label up to the next label are a straight-line block like
a braced one, so two launches there are one run (the same dependence, replay and nvcc
checks); a run never crosses a label (control can enter there: a fall-through case) nor a
jump. Outputs checked by replay on cpu devices (the replay takes the case the arguments
select)."""

from __future__ import annotations

import pytest

from runtime.api import Runtime
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay

#: ``pick``: one launch per branch of an if, then one after it (cuda-samples boxFilter's
#: shape), each alone in its block: the warning names the branch.
#: ``case 0``: scale then shift, with no braces (one run); ``case 1`` falls through into
#: ``case 2``: entering at ``case 2`` runs ``shift`` alone, so the two are not fused
SWITCHED = """#include <cstdio>
#include <cuda_runtime.h>
__global__ void scale(float *a, float w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * w;
}
__global__ void shift(float *a, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] + s;
}
static void step(float *d, int n, int mode)
{
    switch (mode) {
    case 0:
        scale<<<(n + 127) / 128, 128>>>(d, 2.0f, n);
        shift<<<(n + 127) / 128, 128>>>(d, 1.0f, n);
        break;
    case 1:
        scale<<<(n + 127) / 128, 128>>>(d, 0.5f, n);
    case 2:
        shift<<<(n + 127) / 128, 128>>>(d, 3.0f, n);
        break;
    default:
        break;
    }
}
static void pick(float *d, int n, int flag)
{
    if (flag) {
        scale<<<(n + 127) / 128, 128>>>(d, 2.0f, n);
    } else {
        scale<<<(n + 127) / 128, 128>>>(d, 0.5f, n);
    }
    shift<<<(n + 127) / 128, 128>>>(d, 1.0f, n);
}
int main()
{
    const int n = 1000;
    static float h[1000];
    for (int i = 0; i < n; ++i) h[i] = 0.25f * i;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    step(d, n, 0);
    step(d, n, 1);
    step(d, n, 2);
    pick(d, n, 1);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[7], h[n - 1]);
    cudaFree(d);
    return 0;
}
"""


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    path = tmp_path_factory.mktemp("switch") / "switched.cu"
    path.write_text(SWITCHED)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and not result.incomplete   # nvcc -c kept the group
    return path, result


def test_two_launches_of_one_case_are_fused(fused):
    path, result = fused
    after = result.change.after.decode()
    case0 = after[after.index("case 0:"):after.index("case 1:")]
    assert case0.count("<<<") == 1 and "s2s_fused_0<<<" in case0, case0
    assert "break;" in case0


def test_a_run_does_not_cross_a_case_label(fused):
    path, result = fused
    after = result.change.after.decode()
    rest = after[after.index("case 1:"):]
    assert "scale<<<" in rest and "shift<<<" in rest and "s2s_fused" not in rest
    reasons = [d.message for d in result.diagnostics if "shift" in d.message]
    assert any("switch label 'case 2'" in m for m in reasons), reasons


def test_a_launch_alone_in_a_branch_names_the_branch(fused):
    """boxFilter's shape: fuse fuses one block's launches and copies no statement into
    branches, so each branch's launch is alone; the warning says which block and why."""
    path, result = fused
    said = [d.message for d in result.diagnostics if d.id == "fuse-unfused"
            and "'pick'" in d.message and "only launch of its block" in d.message]
    assert len(said) == 2, said
    line = SWITCHED.splitlines().index("    if (flag) {") + 1
    for branch, message in zip(("then", "else"), said, strict=True):
        assert f"the {branch} branch of the if statement at line {line}" in message, message
        assert "not copied into its branches" in message, message


def test_fused_cases_replay_like_the_original(fused):
    """The replay takes the switch's case (and the if's branch) the arguments select."""
    path, result = fused
    runtime = Runtime("cpu", 1, threads=2)
    before = replay(str(path), runtime=runtime, module_source=result.change.after, traffic=False)
    after = replay(str(path), source=result.change.after, runtime=runtime, traffic=False)
    # step 0: 2 -> 1, step 1: 2, step 2: 1, pick: 2
    assert (len(before.launches), len(after.launches)) == (7, 6)
    assert compare(before, after) == []
