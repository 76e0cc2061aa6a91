"""``scripts/bench_fuse_gpu.py``: skips cleanly (exit 0, a printed reason, no numbers) where
no GPU is usable, and the programs it times build: every launch run of ``main`` is wrapped in
a repetition loop between cudaEvents, in the original and in the fused program alike."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from conftest import REPO

from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse

SCRIPT = REPO / "scripts" / "bench_fuse_gpu.py"
SPEC = importlib.util.spec_from_file_location("bench_fuse_gpu", SCRIPT)
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)


@pytest.fixture(scope="module")
def gpu(tmp_path_factory):
    """Copy bandwidth and device, or (None, why no GPU is usable)."""
    return bench.copy_bandwidth(bench.nvcc(), tmp_path_factory.mktemp("probe"))


def test_skips_cleanly_without_a_gpu(gpu):
    if gpu[0] is not None:
        pytest.skip(f"a GPU is usable here ({gpu[1]}): the skip path does not apply")
    proc = subprocess.run([sys.executable, str(SCRIPT), "vadd"], capture_output=True,
                          text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("bench_fuse_gpu: skipped: ")
    assert "nothing was measured" in proc.stdout and "GB/s" not in proc.stdout


def test_no_nvcc_is_a_reason(tmp_path):
    assert bench.copy_bandwidth(None, tmp_path) == (None, "nvcc not found")


def test_instrumented_programs_compile(tmp_path):
    compiler = bench.nvcc()
    path = "samples/cuda/block_reduction/block_reduction.cu"
    fused = process_file(str(REPO / path), RunOptions(), run_fuse)
    assert isinstance(fused, Success)
    counts = []
    for version, text in (("before", (REPO / path).read_bytes()), ("after", fused.change.after)):
        program, runs, launches = bench.instrument(path, text)
        counts.append((runs, launches))
        assert program.count("s2s_bench_report(") == runs + 1     # the helper and each run
        if compiler is None:
            continue
        source = tmp_path / f"{version}.cu"
        source.write_text(program)
        proc = subprocess.run([compiler, "-c", "-arch=sm_90", str(source), "-o",
                               str(tmp_path / f"{version}.o")], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    assert counts == [(2, 3), (2, 2)]
    if compiler is None:
        pytest.skip("nvcc not found: instrumented programs not compiled")


@pytest.mark.gpu
def test_fused_sample_measured_on_gpu(gpu):
    if gpu[0] is None:
        pytest.skip(f"no GPU: {gpu[1]}")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--reps", "3", "vadd"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("vadd"))
    assert "2 -> 1" in row and row.rstrip().endswith("same")


def test_a_horizontally_fused_launch_is_timed():
    """bicgk's fused launch calls helpers in its launch configuration: the run finder of ``s2s
    fuse`` does not take it as a run node, the bench still times it (one run, one launch)."""
    path = "samples/cuda/bicgk/bicgk.cu"
    fused = process_file(str(REPO / path), RunOptions(), run_fuse)
    assert isinstance(fused, Success)
    program, runs, launches = bench.instrument(path, fused.change.after)
    assert (runs, launches) == (1, 1)
    timed = program.split("if (s2s_rep == 0) cudaEventRecord(s2s_e0);", 1)[1].split("cudaEventRecord(s2s_e1)")[0]
    assert timed.count("<<<") == 1 and "s2s_fused_0<<<" in timed
