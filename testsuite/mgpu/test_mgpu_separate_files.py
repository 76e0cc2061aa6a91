"""Kernels in one ``.cu`` file with no host CUDA code, launched from another (issue 18): the
kernel-only file is rewritten too (its table registers its kernels), so the program built by
its own Makefile with ``s2s nvcc --s2s-passes=mgpu`` runs every launch split over the devices,
and ``s2s verify`` runs both versions (the original's shim finds the kernels of the other file).
Program: testsuite/mgpu/separate_files (main.cu launches, kernels.cu defines, ops.h declares)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mgpu_support import NVCC, table_text, write_rewrite

from s2s.driver import RunOptions, process_file
from s2s.transform.mgpu import run_mgpu

REPO = Path(__file__).resolve().parents[2]
PROGRAM = Path(__file__).resolve().parent / "separate_files"
EXPECTED = "y[1] = 1.5, y[4095] = 6142.5, sum = 12579840.0\n"


def test_kernel_only_file_is_rewritten_with_its_table():
    result = process_file(str(PROGRAM / "kernels.cu"), RunOptions(), run_mgpu)
    after, table = result.change.after, table_text(result)
    assert b"#include <s2s_mgpu.h>" in after and b'#include "kernels.cu.s2s_mgpu.h"' in after
    assert "s2s_mgpu::register_unit" in table
    assert '"fill_ramp"' in table and '"add_into"' in table
    assert not any(d.is_error for d in result.diagnostics)


def test_a_rewritten_kernel_only_file_is_left_alone(tmp_path):
    """mgpu on its own output changes nothing (its table is not registered twice)."""
    first = process_file(str(PROGRAM / "kernels.cu"), RunOptions(), run_mgpu)
    once = write_rewrite(first, tmp_path / "kernels.cu").read_bytes()
    shutil.copy(PROGRAM / "ops.h", tmp_path / "ops.h")
    again = process_file(str(tmp_path / "kernels.cu"), RunOptions(), run_mgpu)
    assert again.change.after == once and not again.changed and again.generated == ()
    assert not again.diagnostics


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None or shutil.which("make") is None, reason="nvcc or make missing")
def test_makefile_build_runs_every_launch_split(tmp_path):
    work = tmp_path / "prog"
    shutil.copytree(PROGRAM, work)
    wrapper = f"{sys.executable} -m s2s nvcc --s2s-passes=mgpu"
    env = {k: v for k, v in os.environ.items() if k not in ("S2S_WRAPPED", "S2S_PASSES")}
    env["PYTHONPATH"] = str(REPO)
    built = subprocess.run(["make", f"NVCC={wrapper}"], cwd=work, capture_output=True, text=True,
                           env=env)
    assert built.returncode == 0, built.stderr
    assert "wrapper-" not in built.stderr.replace("mgpu-other-file", "")      # no fallback
    stats = tmp_path / "stats.json"
    # from the build directory: the runtime finds kernels.cu's quoted includes through its
    # __FILE__, which is relative when make compiles a relative name
    run = subprocess.run([str(work / "prog")], capture_output=True, text=True, timeout=300, cwd=work,
                         env=dict(env, S2S_BACKEND="cpu", S2S_DEVICES="2", S2S_STATS=str(stats)))
    assert run.returncode == 0, run.stderr
    assert run.stdout == EXPECTED
    launches = json.loads(stats.read_text())["launches"]
    assert [(la["kernel"], la["partitioned"], la["boxes"]) for la in launches] == \
        [("fill_ramp", True, 2), ("fill_ramp", True, 2), ("add_into", True, 2)]


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_verify_runs_both_files(tmp_path):
    work = tmp_path / "prog"
    shutil.copytree(PROGRAM, work)
    proc = subprocess.run([sys.executable, "-m", "s2s", "verify", "--passes", "mgpu", "main.cu",
                           "kernels.cu"], cwd=work, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdict: OK" in proc.stdout
