"""Fusion on host code as programs write it (issue 19, items 3 and 6): synchronizations of
the default stream between launches, event records that end a run (named by ``--explain``),
and fusion of a program ``s2s transfers`` already pooled."""

from __future__ import annotations

import pytest
from conftest import REPO

from runtime.api import Runtime
from s2s.cli.main import main as cli_main
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.transform.transfers import run_transfers
from s2s.verify.fuse_replay import compare, replay

SYNCED = """#include <cstdio>
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
    fprintf(stderr, "%s\\n", cudaGetErrorString(e_)); return 1; } } while (0)
__global__ void scale(float *y, const float *x, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void shift(float *z, const float *y, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = y[i] + 1.0f; }
int main()
{
    int n = 1000;
    float h[1000];
    float *d_x, *d_y, *d_z;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_z, n * sizeof(float));
    cudaMemcpy(d_x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    scale<<<(n + 255) / 256, 256>>>(d_y, d_x, n);
    CHECK(cudaDeviceSynchronize());
    shift<<<(n + 255) / 256, 256>>>(d_z, d_y, n);
    cudaDeviceSynchronize();
    cudaEventRecord(stop);
    scale<<<(n + 255) / 256, 256>>>(d_x, d_z, n);
    cudaEventRecord(start);
    shift<<<(n + 255) / 256, 256>>>(d_y, d_x, n);
    cudaMemcpy(h, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h, d_z, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\\n", h[0]);
    return 0;
}
"""


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


def test_fusion_goes_through_default_stream_synchronizations(tmp_path, runtime):
    path = tmp_path / "synced.cu"
    path.write_text(SYNCED)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and not result.incomplete
    after = result.change.after.decode()
    assert after.count("s2s_fused_0<<<") == 1
    # the synchronizations and the event records stay, in their order around the launches
    assert after.count("cudaDeviceSynchronize()") == 2
    assert after.index("cudaEventRecord(start);") < after.index("s2s_fused_0<<<") \
        < after.index("cudaEventRecord(stop);")
    notes = [d.message for d in result.diagnostics if d.id == "fuse-explain"]
    assert any(m.startswith("fused: scale#0 + shift#1") for m in notes)
    ends = [m for m in notes if m.startswith("not fused with the launches before it")]
    assert len(ends) == 2 and all("cudaEventRecord" in m for m in ends)
    before = replay(str(path), runtime=runtime, module_source=result.change.after, traffic=False)
    fused = replay(str(path), source=result.change.after, runtime=runtime, traffic=False)
    assert len(fused.launches) == len(before.launches) - 1
    assert compare(before, fused) == []


def test_fuse_after_transfers_sees_the_pooled_buffers(tmp_path, capsys, monkeypatch):
    """transfers pools ``d_t`` as a slice of its device pool; fuse (run after it in the
    default chain) still keeps ``d_t`` in a register, and the chain verifies."""
    monkeypatch.chdir(REPO)
    path = "samples/cuda/vadd/vadd.cu"
    pooled = process_file(path, RunOptions(), run_transfers).change.after
    assert b"s2s_device_pool" in pooled
    result = process_file(path, RunOptions(), run_fuse, source=pooled)
    assert isinstance(result, Success) and not result.incomplete
    assert result.change.after.count(b"s2s_fused_0<<<") == 1
    assert any("fused: vadd_kernel#0 + vadd_kernel#1" in d.message for d in result.diagnostics)
    assert cli_main(["verify", "--passes", "transfers,fuse", path]) == 0
    out, err = capsys.readouterr()
    assert "verdict: OK" in out
    assert "verify-one-device" not in err       # --devices not asked for: nothing to explain


PATTERNS = REPO / "testsuite" / "fuse" / "data" / "patterns"


def test_buffers_rotated_at_the_top_of_a_frame_loop_fuse(capsys):
    """Item 4: ``t = d_prev; d_prev = d_cur; d_cur = t;`` only permutes distinct allocations,
    so the three launches of the loop body fuse, and the program verifies."""
    path = str(PATTERNS / "frame_swap.cu")
    result = process_file(path, RunOptions(), run_fuse)
    assert isinstance(result, Success) and not result.incomplete
    assert result.change.after.count(b"<<<") == 1
    assert cli_main(["verify", "--passes", "fuse", "--devices", "2", path]) == 0
    out, err = capsys.readouterr()
    assert "verdict: OK" in out
    # issue 29: the table's "devices" column says 1 under --devices 2; the note says why
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 2 and all(row.split("│")[2].strip() == "1" for row in rows), out
    assert "the rewritten program ran on 1 cpu device, as the original did, not on the 2 asked " \
        "for: the passes (fuse) did not rewrite it for the s2s runtime" in err, err
    assert "[verify-one-device]" in err


def test_a_copy_that_is_no_rotation_still_blocks_fusion(tmp_path):
    source = (PATTERNS / "frame_swap.cu").read_text()
    broken = source.replace("        d_cur = t;\n", "")        # d_prev == d_cur from now on
    assert broken != source
    path = tmp_path / "aliased.cu"
    path.write_text(broken)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert result.change.after == broken.encode()
    assert any("is reassigned in 'main' (aliasing)" in d.message for d in result.diagnostics)


def test_transfers_after_fuse_understands_fused_kernels(capsys, monkeypatch):
    """Item 6, the other order: the fused kernel's access analysis says it reads ``d_e``
    (a later stage reads what an earlier one wrote); transfers used to refuse the function
    with 'read before anything is written'. Now softmax_chain goes 3 -> 1 launches and
    5 -> 1 cudaMalloc with fuse then transfers, and verifies."""
    monkeypatch.chdir(REPO)
    path = "samples/cuda/softmax_chain/softmax_chain.cu"
    fused = process_file(path, RunOptions(), run_fuse).change.after
    result = process_file(path, RunOptions(), run_transfers, source=fused)
    assert [d.id for d in result.diagnostics if d.severity.name == "WARNING"] == []
    assert result.change.after.count(b"cudaMalloc(") == 1
    assert cli_main(["verify", "--passes", "fuse,transfers", path]) == 0
    assert "verdict: OK" in capsys.readouterr().out


def test_kernels_defined_after_main_get_a_fused_prototype(capsys):
    """Corpus pattern (late_include): ``main`` launches kernels only declared before it; the
    fused kernel goes after the definitions, so a prototype of it goes before ``main`` (the
    rewrite used to fail with 'use of undeclared identifier' and was dropped)."""
    path = str(PATTERNS / "kernels_after_main.cu")
    result = process_file(path, RunOptions(), run_fuse)
    assert isinstance(result, Success) and not result.incomplete
    after = result.change.after.decode()
    assert after.count("<<<") == 1
    prototype = after.index("__global__ void s2s_fused_0(const float *d_in, float *d_out, int s2s_a0);")
    assert prototype < after.index("int main()") < after.rindex("__global__ void s2s_fused_0(")
    assert cli_main(["verify", "--passes", "fuse", path]) == 0
    assert "verdict: OK" in capsys.readouterr().out
