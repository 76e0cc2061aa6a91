"""Completion by the last block: a one-block second pass (``final_sum<<<1, T>>>``) fused after
the launches it reads, run by the block that takes the last ticket after every block fenced
its writes. Checked by running the original and fused programs on the runtime's cpu devices;
the checker is shown to catch a wrong completion and a ticket that is not reset."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from runtime.api import Runtime
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay
from testsuite.fuse.fuse_support import fused_sets, planned, refusals

TWO_PASS = "testsuite/fuse/data/two_pass.cu"
LAST = "gridDim.x * gridDim.y * gridDim.z - 1u"


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    monkeypatch.chdir(REPO)


def _fused(path: str) -> bytes:
    result = process_file(path, RunOptions(), run_fuse)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    return result.change.after


def test_map_partial_and_final_pass_become_one_launch(runtime):
    fused = _fused(TWO_PASS)
    before = replay(TWO_PASS, runtime=runtime)
    after = replay(TWO_PASS, source=fused, runtime=runtime)
    assert before.launches == ["scale", "partial_sum", "final_sum"]
    assert after.launches == ["s2s_fused_0"]
    assert before.outputs and compare(before, after) == []
    assert LAST.encode() in fused and b"__device__ unsigned int s2s_fused_0_ticket;" in fused


def test_checker_catches_completion_by_the_wrong_block(runtime):
    """The first block to finish completes (and the ticket is not reset, else every block
    would complete in turn, the last one correctly): partials of later blocks are missing."""
    fused = _fused(TWO_PASS).decode()
    wrong = fused.replace(LAST, "0u", 1).replace("        s2s_fused_0_ticket = 0u;\n",
                                                  "        ;\n", 1)
    assert "s2s_fused_0_ticket = 0u" not in wrong and LAST not in wrong
    before = replay(TWO_PASS, runtime=runtime)
    after = replay(TWO_PASS, source=wrong.encode(), runtime=runtime)
    assert compare(before, after) != []


def test_ticket_is_reset_for_the_next_launch(runtime):
    """A first launch with another scale factor before the real one: the second launch only
    completes (overwriting the first result) when the first reset the ticket."""
    fused = _fused(TWO_PASS).decode()
    launch = "    s2s_fused_0<<<blocks, THREADS>>>(d_x, 0.5f, n, d_partial, d_total, blocks);\n"
    assert launch in fused
    twice = fused.replace(launch, launch.replace("0.5f", "0.25f") + launch, 1)
    before = replay(TWO_PASS, runtime=runtime)
    assert compare(before, replay(TWO_PASS, source=twice.encode(), runtime=runtime)) == []
    no_reset = twice.replace("        s2s_fused_0_ticket = 0u;\n", "        ;\n", 1)
    assert no_reset != twice
    assert compare(before, replay(TWO_PASS, source=no_reset.encode(), runtime=runtime)) != []


def test_block_reduction_sample_two_pass_fused(runtime):
    """The sample's CHECK(cudaGetLastError()) between the launches no longer ends the run.
    n is overridden: the replay does not follow the host's clamp of the partial count."""
    path = "samples/cuda/block_reduction/block_reduction.cu"
    fused = _fused(path)
    sizes = {"n": 20011}
    before = replay(path, overrides=sizes, runtime=runtime)
    after = replay(path, source=fused, overrides=sizes, runtime=runtime)
    assert len(before.launches) == 3 and len(after.launches) == 2
    assert compare(before, after) == []


FINAL = """
__global__ void partial_sum(const float *in, float *partial, int n)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k)
            s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}
__global__ void final_sum(const float *partial, float *out, int count)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    float acc = 0.0f;
    for (int j = tid; j < count; j += blockDim.x)
        acc += partial[j];
    s[tid] = acc;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k)
            s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0)
        out[0] = s[0];
}
__global__ void shift(float *x, const float *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] -= total[0];
}
int main()
{
    int n = 5000;
    int blocks = (n + 255) / 256;
    float *d_x, *d_partial, *d_total;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMalloc(&d_total, sizeof(float));
    partial_sum<<<blocks, 256>>>(d_x, d_partial, n);
    final_sum<<<1, BLOCK>>>(d_partial, d_total, blocks);
    LATER
    return 0;
}
"""


def test_one_block_tail_needs_the_same_block_shape():
    _facts, plans = planned(FINAL.replace("BLOCK", "128").replace("LATER", ""))
    assert fused_sets(plans) == []
    assert any("another block shape" in r for r in refusals(plans))
    _facts, plans = planned(FINAL.replace("BLOCK", "256").replace("LATER", ""))
    assert fused_sets(plans) == [["partial_sum", "final_sum"]]


def test_clashing_one_block_kernel_is_only_a_tail():
    """final_sum writes out[0] from every block it would have: it may end a group, never
    start one (the shift after it needs the total from a finished grid)."""
    later = "shift<<<blocks, 256>>>(d_x, d_total, n);"
    _facts, plans = planned(FINAL.replace("BLOCK", "256").replace("LATER", later))
    assert fused_sets(plans) == [["partial_sum", "final_sum"]]
    assert any("fusible only as the last launch" in r or "different shapes" in r
               for r in refusals(plans))


def test_fused_two_pass_compiles_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)
    if nvcc is None:
        pytest.skip("nvcc not found: skipping the compile check of fused files")
    for path in (TWO_PASS, "samples/cuda/block_reduction/block_reduction.cu"):
        source = tmp_path / Path(path).name
        source.write_bytes(_fused(path))
        proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(source), "-o",
                               str(tmp_path / "x.o")], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
