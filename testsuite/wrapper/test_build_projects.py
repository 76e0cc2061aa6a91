"""The sample projects build through the wrapper: a Makefile with NVCC="s2s nvcc" and
CC="s2s clang-16", and CMake with s2s as the C and CUDA compiler launcher.

The OpenMP program is built with the omp pass (the projects' .s2s.toml selects it), run on
clang-16's host device and checked three ways: its output is the expected one, it moves fewer
bytes than the same program built without s2s (so the pass really ran inside the build), and
it uses no pointer without a device mapping. The CUDA kernels file is compiled only (no driver
here); the Makefile's CUDA program is rewritten by the mgpu pass and run on two cpu devices.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from s2s.verify import omp_harness

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "build"


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not found on PATH: {', '.join(missing)}")
    problem = omp_harness.toolchain_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture
def env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for name in ("S2S_PASSES", "S2S_WRAPPED", "S2S_REAL_NVCC", "S2S_SILENCE"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def plain_copies(tmp_path_factory) -> omp_harness.CopyStats:
    """The data the heat program moves when built without s2s."""
    _need("clang-16")
    exe = tmp_path_factory.mktemp("plain") / "heat"
    omp_harness.build(SAMPLES / "make_project" / "src" / "heat.c", exe)
    return omp_harness.run(exe).copies


def _check_heat(exe: Path, project: Path, plain_copies: omp_harness.CopyStats) -> None:
    result = omp_harness.run(exe)
    assert result.returncode == 0, result.stderr[-2000:]
    expected = (project / "expected_output.txt").read_text()
    assert omp_harness.compare_outputs(expected, result.stdout) is None
    assert result.unmapped == ()
    assert result.copies.total_bytes < plain_copies.total_bytes / 10, result.copies


def _wrapper_said(log: str) -> list[str]:
    return [line for line in log.splitlines() if "[wrapper-" in line]


def test_make_project(tmp_path, env, plain_copies):
    _need("make", "nvcc", "clang-16", "nm")
    project = tmp_path / "make_project"
    shutil.copytree(SAMPLES / "make_project", project)
    s2s = f"{sys.executable} -m s2s"
    make = ["make", "-C", str(project), f"NVCC={s2s} nvcc", f"CC={s2s} clang-16"]
    build = subprocess.run(make, env=env, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    assert _wrapper_said(build.stderr) == []  # no fallback, no unavailable pass
    _check_heat(project / "heat", project, plain_copies)
    symbols = subprocess.run(["nm", str(project / "kernels.o")], capture_output=True,
                             text=True).stdout
    assert "launch_axpy" in symbols
    # The mgpu-rewritten CUDA program runs partitioned on two emulated devices.
    run_env = dict(env, S2S_BACKEND="cpu", S2S_DEVICES="2", S2S_CPU_THREADS="2")
    ran = subprocess.run([str(project / "saxpy")], env=run_env, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout == (project / "expected_saxpy.txt").read_text()
    for deps, first, header in (("heat.d", "heat.o: src/heat.c", "src/params.h"),
                                ("kernels.d", "kernels.o : src/kernels.cu", "src/kernels.cuh")):
        text = (project / deps).read_text()
        assert text.startswith(first) and header in text and "s2s-wrap" not in text
    # The dependency files hold no temporary paths: a second make has nothing to do.
    again = subprocess.run([*make, "-q", "all"], env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr


def test_cmake_project(tmp_path, env, plain_copies):
    _need("cmake", "nvcc", "clang-16", "nm")
    project = tmp_path / "cmake_project"
    shutil.copytree(SAMPLES / "cmake_project", project)
    launcher = f"{sys.executable};-m;s2s"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = subprocess.run(
        ["cmake", "-S", str(project), "-B", str(project / "build"), *generator,
         "-DCMAKE_C_COMPILER=clang-16", f"-DCMAKE_C_COMPILER_LAUNCHER={launcher}",
         f"-DCMAKE_CUDA_COMPILER_LAUNCHER={launcher}"],
        env=env, capture_output=True, text=True, timeout=300)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    build = subprocess.run(["cmake", "--build", str(project / "build"), "-v"], env=env,
                           capture_output=True, text=True, timeout=300)
    log = build.stdout + build.stderr
    assert build.returncode == 0, log
    assert f"{sys.executable} -m s2s " in log  # the launcher ran
    assert _wrapper_said(log) == []
    _check_heat(project / "build" / "heat", project, plain_copies)
    objects = list((project / "build").rglob("kernels.cu.o"))
    assert len(objects) == 1
    symbols = subprocess.run(["nm", str(objects[0])], capture_output=True, text=True).stdout
    assert "launch_axpy" in symbols
