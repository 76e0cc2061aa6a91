"""The other mgpu samples as 2-rank x 2-device jobs: the output equals the program's as one process on
one device (kernels that run whole on one device -- block_reduction's atomics -- included: their data
is gathered onto device 0 of rank 0 and spread again)."""

from __future__ import annotations

import pytest
from mpi_support import REPO, build_sample, build_source, missing, run_job, run_single

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

SAMPLES = ["saxpy", "bicgk", "elementwise_chain", "gemver", "softmax_warp", "streams_events", "block_reduction"]


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_job_prints_what_one_process_prints(name, tmp_path):
    exe = build_sample(name, tmp_path)
    expected, _ = run_single(exe, 1)
    proc = run_job(exe, 2, 2)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


def test_constant_tables_reach_every_rank(tmp_path):
    # cudaMemcpyToSymbol into __constant__ filter/length (corpus program constant_conv1d): every
    # rank's devices hold their own copy of the variables, so rank 0 sends the bytes to all
    exe = build_source(REPO / "testsuite" / "corpus" / "cuda" / "constant_conv1d" / "conv1d.cu",
                       tmp_path)
    expected, _ = run_single(exe, 1)
    proc = run_job(exe, 2, 2)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
