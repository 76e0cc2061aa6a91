"""The project headers of a file (issue 30): s2s's own parse headers (``-include
shim/nvcc_compat.h`` and the legacy-API stub) are never the project's, so no pass models,
searches or copies them as the user's; and the unit's include list is read once, however many
contexts (the file's, each project header's read in it) ask for it."""

from __future__ import annotations

import os

import pytest

from s2s.frontend.core.context import project_headers_of
from s2s.frontend.core.parse import ParseOptions, parse_file
from s2s.frontend.core.toolchain import SHIM_DIR, Toolchain, default_toolchain, find_omp_include
from s2s.frontend.extract import load

KERNEL_H = """#pragma once
__device__ inline float twice(float x) { return 2.0f * x; }
"""

SIZES_H = """#pragma once
#define N 256
"""

MAIN_CU = """#include "kern.h"
#include "sizes.h"
__global__ void scale(float *v) { int i = threadIdx.x; if (i < N) v[i] = twice(v[i]); }
int main() {
  float *d;
  cudaMalloc(&d, N * sizeof(float));
  scale<<<1, N>>>(d);
  cudaFree(d);
  return 0;
}
"""


def _toolchains():
    real = default_toolchain()
    toolkit = pytest.param(real, id="toolkit", marks=pytest.mark.skipif(
        real.cuda_path is None, reason="no CUDA toolkit here: the shim is tested alone"))
    return [toolkit, pytest.param(Toolchain(cuda_path=None, omp_include=find_omp_include()),
                                  id="shim")]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    folder = tmp_path_factory.mktemp("headers")
    (folder / "kern.h").write_text(KERNEL_H)
    (folder / "sizes.h").write_text(SIZES_H)
    (folder / "main.cu").write_text(MAIN_CU)
    return folder


def _in_shim(name: str) -> bool:
    return os.path.abspath(name).startswith(os.path.join(os.path.abspath(str(SHIM_DIR)), ""))


@pytest.mark.parametrize("toolchain", _toolchains())
def test_the_tools_own_headers_are_no_project_headers(program, toolchain):
    loaded = load(str(program / "main.cu"), ParseOptions(toolchain=toolchain))
    assert loaded.ok
    names = [os.path.basename(h) for h in loaded.model.project_headers]
    assert names == ["kern.h", "sizes.h"]
    assert not any(_in_shim(h) for h in loaded.model.project_headers)
    # the header with device code is modelled (in the file's context); s2s's are not
    assert [os.path.basename(h.path) for h in loaded.headers] == ["kern.h"]
    assert loaded.headers[0].model.device_functions[0].name == "twice"


def test_the_include_list_is_read_once_for_every_context(program):
    parsed = parse_file(str(program / "main.cu"))
    unit, main = parsed.primary, parsed.path
    reads = []
    real = unit.get_includes

    def counted():
        reads.append(1)
        return real()

    unit.get_includes = counted
    first = project_headers_of(unit, main)
    header = next(h for h in first if h.endswith("kern.h"))
    # a project header's own context: the others, itself left out
    assert [os.path.basename(h) for h in project_headers_of(unit, header)] == ["sizes.h"]
    assert project_headers_of(unit, main) == first
    assert len(reads) == 1
