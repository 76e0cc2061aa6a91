"""What ``runtime/include/s2s_mgpu.h`` includes (issue 30: ``s2s nvcc`` warm within 1.2x of nvcc).

Every file a build rewrites with ``s2s mgpu`` includes the header, and nvcc compiles it twice
(host and device). With <chrono>, <tuple> and <vector> it made a rewritten file's ``nvcc -c``
about 0.3 s of CPU slower (docs/benchmarks.md). The header now includes C library headers
only; this holds it there: every C++ library header (a name without an extension) that
preprocessing it reads is one of the C library's wrappers. g++ and the stand-in
cuda_runtime.h of testsuite/runtime/c_program are enough (no CUDA toolkit)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
C_WRAPPERS = {"cstddef", "cstdio", "cstdlib", "cstring"}


def test_the_mgpu_header_reads_no_cxx_library_header(tmp_path):
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler (g++) on this machine")
    source = tmp_path / "rewritten.cpp"
    source.write_text("#include <cuda_runtime.h>\n#include <s2s_mgpu.h>\n")
    deps = subprocess.run(
        ["g++", "-std=c++11", "-M", f"-I{REPO / 'testsuite' / 'runtime' / 'c_program' / 'fake_cuda'}",
         f"-I{REPO / 'runtime' / 'include'}", str(source)],
        capture_output=True, text=True, check=True).stdout
    files = [Path(f) for f in deps.replace("\\\n", " ").split()[1:]]
    assert any(f.name == "s2s_mgpu.h" for f in files)
    assert {f.name for f in files if not f.suffix} == C_WRAPPERS
