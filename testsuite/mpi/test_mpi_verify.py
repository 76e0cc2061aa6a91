"""``s2s verify --ranks N``: the mgpu rewrite run as an MPI job, compared with the original."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from mpi_support import CUDA_SAMPLES, REPO, missing


def _verify(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s2s.cli.main", "verify", *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=env)


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_verify_runs_the_rewrite_on_ranks():
    proc = _verify(str(CUDA_SAMPLES / "hotspot" / "hotspot.cu"), "--passes", "mgpu", "--ranks", "2",
                   "--devices", "2", "--args", "64 48 3", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    verdict, = json.loads(proc.stdout)["programs"]
    assert verdict["ok"] and verdict["differences"] == []
    assert verdict["original"]["devices"]["devices"] == 1
    assert verdict["rewritten"]["devices"]["devices"] == 4          # 2 ranks x 2 devices
    assert verdict["rewritten"]["devices"]["split_launches"] == 3


def test_ranks_must_be_positive_and_apply_to_cuda_only():
    proc = _verify(str(CUDA_SAMPLES / "hotspot" / "hotspot.cu"), "--ranks", "0")
    assert proc.returncode == 2 and "--ranks must be at least 1" in proc.stderr
    omp = next((REPO / "samples" / "openmp").glob("*/*.c"))
    proc = _verify(str(omp), "--ranks", "2")
    assert proc.returncode == 2 and "is not a CUDA program" in proc.stderr, proc.stderr


def test_no_mpirun_is_said_before_anything_is_built(tmp_path):
    env = dict(os.environ, S2S_MPIRUN=str(tmp_path / "no-such-mpirun"))
    proc = _verify(str(CUDA_SAMPLES / "hotspot" / "hotspot.cu"), "--passes", "mgpu", "--ranks", "2", env=env)
    assert proc.returncode == 2
    assert "no mpirun found" in proc.stderr and "[verify-no-mpi]" in proc.stderr, proc.stderr
