"""Host code nvcc accepts parses as nvcc compiles it, with the toolkit and with s2s's shim
(issue 29: cuda-samples transpose and simpleStreams, Rodinia kmeans and hybridsort):

* ``max(a, b)`` / ``min(a, b)`` on ints in a host function without ``std::``: nvcc declares
  them ``__host__ __device__``, clang's CUDA headers device-only;
* ``#include <omp.h>`` in a ``.cu`` file built without ``-fopenmp`` (nvcc's host compiler has
  its own omp.h);
* ``#ifdef __DRIVER_TYPES_H__`` / ``__CUDA_RUNTIME_H__`` (the toolkit's include guards, which
  helper_cuda.h tests before it defines ``checkCudaErrors``);
* a texture reference (removed in CUDA 12, which nvcc 13 rejects too) is refused with the
  reason, not with "no template named 'texture'".
"""

from __future__ import annotations

import pytest

from s2s.frontend.core.parse import ParseOptions, parse_source
from s2s.frontend.core.toolchain import Toolchain, default_toolchain, find_omp_include

SHIM = Toolchain(cuda_path=None, omp_include=find_omp_include())


def _toolchains():
    real = default_toolchain()
    toolkit = pytest.param(real, id="toolkit", marks=pytest.mark.skipif(
        real.cuda_path is None, reason="no CUDA toolkit here: the shim is tested alone"))
    return [toolkit, pytest.param(SHIM, id="shim")]


def _errors(source: str, toolchain: Toolchain) -> list[str]:
    parsed = parse_source(source, "host_compat.cu", ParseOptions(toolchain=toolchain))
    return [d.message for d in parsed.diagnostics if d.is_error]


HOST_MAX = """
#include <cstdio>
__global__ void scale(float *v, int n) { int i = threadIdx.x; if (i < max(n, 0)) v[i] *= 2.f; }
int tiles(int width, int height) {
  int most = max(width / 32, height / 32);
  unsigned fewest = min(4u, (unsigned)width);
  float f = max(1.5f, 2.0f);
  return most + (int)fewest + (int)f;
}
int main() { printf("%d\\n", tiles(64, 96)); return 0; }
"""


@pytest.mark.parametrize("toolchain", _toolchains())
def test_host_min_max_without_std_parse(toolchain):
    assert _errors(HOST_MAX, toolchain) == []


OMP_TIMER = """
#include <omp.h>
#include <cstdio>
__global__ void k(float *v) { v[threadIdx.x] = 0.f; }
int main() { double t0 = omp_get_wtime(); printf("%f\\n", omp_get_wtime() - t0); return 0; }
"""


@pytest.mark.parametrize("toolchain", _toolchains())
def test_omp_header_in_a_cuda_file_parses(toolchain):
    assert _errors(OMP_TIMER, toolchain) == []


GUARDED_CHECK = """
#include <cstdio>
#include <cuda_runtime.h>
#if defined(__DRIVER_TYPES_H__) && defined(__CUDA_RUNTIME_H__)
#define checkCudaErrors(val) check((val), #val)
static void check(cudaError_t e, const char *what) { if (e) printf("%s\\n", what); }
#endif
int main() { float *d; checkCudaErrors(cudaMalloc(&d, 16)); return 0; }
"""


@pytest.mark.parametrize("toolchain", _toolchains())
def test_toolkit_include_guards_are_defined(toolchain):
    assert _errors(GUARDED_CHECK, toolchain) == []


TEXTURE_REF = """
#include <cuda_runtime.h>
texture<float, 1, cudaReadModeElementType> t_in;
__global__ void copy(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(t_in, i);
}
"""


@pytest.mark.parametrize("toolchain", _toolchains())
def test_texture_reference_is_refused_with_the_reason(toolchain):
    errors = _errors(TEXTURE_REF, toolchain)
    assert errors and "texture references were removed in CUDA 12" in errors[0]


def test_a_type_of_the_users_named_texture_parses_with_the_toolkit():
    if default_toolchain().cuda_path is None:
        pytest.skip("no CUDA toolkit here: the shim declares CUDA 12's removed texture")
    source = "struct texture { int w, h; };\nint area(texture t) { return t.w * t.h; }\n"
    assert _errors(source, default_toolchain()) == []


def test_a_global_named_texture_in_a_file_the_toolkit_rejects_keeps_the_toolkits_errors():
    """The shim's unavailable ``texture`` collides with the program's own global: that is no
    texture reference, so the toolkit's own error (a member CUDA 13 removed) is the one said."""
    if default_toolchain().cuda_path is None:
        pytest.skip("no CUDA toolkit here: nothing to fall back from")
    source = ("#include <cuda_runtime.h>\nint texture = 3;\n"
              "int rate() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); "
              "return p.clockRate + texture; }\n")
    errors = _errors(source, default_toolchain())
    assert errors and "clockRate" in errors[0], errors
