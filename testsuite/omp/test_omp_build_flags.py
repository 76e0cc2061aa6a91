"""Real build flags never change the analysis (issue 17, item 1).

Builds of OpenMP offload programs pass ``-fopenmp -fopenmp-targets=...`` and device options;
through ``--`` or ``-p BUILD_DIR`` they used to reach the analysis parse, which then failed
(``nvptx-arch`` not found) or lost the loops under the directives: 0 of 12 programs changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.frontend.core.flags import without_openmp_flags

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "openmp" / "matmul" / "matmul.c"
BUILD_FLAGS = ["-fopenmp", "-fopenmp-targets=nvptx64-nvidia-cuda", "-Xopenmp-target=nvptx64",
               "-march=sm_80", "-fopenmp-version=51", "--offload-arch=sm_80", "-foffload=-lm",
               "-O3", "-DUSE_GPU=1"]


def test_openmp_flags_are_stripped_with_their_arguments():
    assert without_openmp_flags(BUILD_FLAGS) == ("-O3", "-DUSE_GPU=1")
    assert without_openmp_flags(["-Xopenmp-target", "-march=sm_70", "-Iinc", "-fiopenmp",
                                 "-fopenmp=libomp", "-DX"]) == ("-Iinc", "-DX")
    assert without_openmp_flags(["-fno-strict-aliasing", "-fPIC"]) == ("-fno-strict-aliasing",
                                                                        "-fPIC")
    # a flag taking the next argument keeps it, or loses it together with an OpenMP value
    assert without_openmp_flags(["-Xclang", "-fopenmp", "-DA", "-Xclang", "-ast-dump",
                                 "-include", "x.h"]) == ("-DA", "-Xclang", "-ast-dump",
                                                         "-include", "x.h")


def _diff(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_flags_after_dashdash_give_the_same_rewrite(tmp_path, capsys, monkeypatch):
    shutil.copy(SAMPLE, tmp_path / "matmul.c")
    monkeypatch.chdir(tmp_path)
    code, plain, _ = _diff(["omp", "matmul.c"], capsys)
    assert code == 0 and "#pragma omp target" in plain
    code, flagged, err = _diff(["omp", "matmul.c", "--", *BUILD_FLAGS], capsys)
    assert code == 0, err
    assert flagged == plain
    assert "omp-no-statement" not in err


def test_compile_commands_with_openmp_flags(tmp_path, capsys, monkeypatch):
    shutil.copy(SAMPLE, tmp_path / "matmul.c")
    build = tmp_path / "build"
    build.mkdir()
    entry = {"directory": str(build), "file": "../matmul.c",
             "arguments": ["/usr/bin/clang-16", *BUILD_FLAGS, "-o", "matmul.o", "-c",
                           "../matmul.c"]}
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    monkeypatch.chdir(tmp_path)
    code, plain, _ = _diff(["omp", "matmul.c"], capsys)
    code, flagged, err = _diff(["omp", "-p", "build", "matmul.c"], capsys)
    assert code == 0, err
    assert flagged == plain and "#pragma omp target" in flagged
    assert "omp-no-statement" not in err and "[clang-error]" not in err


@pytest.mark.parametrize("flag", ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"])
def test_a_single_flag_is_enough_to_matter(tmp_path, capsys, monkeypatch, flag):
    shutil.copy(SAMPLE, tmp_path / "matmul.c")
    monkeypatch.chdir(tmp_path)
    code, out, err = _diff(["omp", "--check", "matmul.c", "--", flag], capsys)
    assert code == 1, err  # changes found, as without the flag
