"""``extern __shared__`` declared in a project header (cuda-samples simpleTemplates'
``sharedmem.cuh``: one per specialization of a struct, inside its ``__device__`` member
function): the cpu backend inlines such a header into the kernels' text so that the
declaration becomes a pointer to the emulator's dynamic shared memory, as one in the ``.cu``
file does (before: "'s_float' was not declared in this scope"). Checked by running a kernel
that reverses each block's slice through it, the header included twice (directly and through
a second header, whose quoted include is found from the header's own folder)."""

from __future__ import annotations

import numpy as np

from runtime.cpu import module as cpu_module
from runtime.cpu.source import inline_shared_headers

SHARED_HEADER = """\
#pragma once
template <typename T> struct Scratch;
template <> struct Scratch<float> {
    __device__ float *get() { extern __shared__ float scratch_f[]; return scratch_f; }
};
template <> struct Scratch<int> {
    __device__ int *get() { extern __shared__ int scratch_i[]; return scratch_i; }
};
"""

STEP_HEADER = """\
#ifndef STEP_CUH
#define STEP_CUH
#include "scratch.cuh"
__device__ inline float twice(float v) { return 2.0f * v; }
#endif
"""

KERNELS = """\
#include "scratch.cuh"
#include "detail/step.cuh"
__global__ void reverse_block(float *data, int n)
{
    Scratch<float> scratch;
    float *tile = scratch.get();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile[threadIdx.x] = data[i];
    __syncthreads();
    if (i < n) data[i] = twice(tile[blockDim.x - 1 - threadIdx.x]);
}
"""


def _project(tmp_path):
    (tmp_path / "scratch.cuh").write_text(SHARED_HEADER)
    (tmp_path / "detail").mkdir()
    (tmp_path / "detail" / "step.cuh").write_text(STEP_HEADER)
    (tmp_path / "detail" / "scratch.cuh").symlink_to(tmp_path / "scratch.cuh")


def test_a_header_with_extern_shared_is_inlined_once_and_others_stay_included(tmp_path):
    _project(tmp_path)
    text = inline_shared_headers(KERNELS, str(tmp_path / "k.cu"), [str(tmp_path)])
    assert text.count("extern __shared__ float scratch_f[];") == 1     # once, not twice
    assert "#pragma once" not in text
    assert text.count("__device__ inline float twice") == 1          # it includes scratch.cuh
    plain = '#include "plain.cuh"\n__global__ void k(float *p) { p[0] = ONE; }\n'
    (tmp_path / "plain.cuh").write_text("#define ONE 1.0f\n")
    assert inline_shared_headers(plain, "p.cu", [str(tmp_path)]) == plain


def test_the_kernel_runs_with_the_headers_dynamic_shared_memory(tmp_path):
    _project(tmp_path)
    module = cpu_module.load(KERNELS, str(tmp_path / "k.cu"), include_dirs=[str(tmp_path)])
    data = np.arange(64, dtype=np.float32)
    module["reverse_block"].launch(2, 32, [data.ctypes.data, 64], shared=32 * 4)
    expected = 2.0 * np.concatenate([np.arange(31, -1, -1), np.arange(63, 31, -1)])
    assert np.array_equal(data, expected.astype(np.float32))
