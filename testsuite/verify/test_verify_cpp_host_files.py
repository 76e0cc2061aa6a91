"""A CUDA program whose ``.cpp`` file does the runtime calls and whose ``.cu`` file launches
(cuda-samples' mergeSort: ``main.cpp`` includes ``cuda_runtime.h``, allocates and copies the
device buffers, and calls ``mergeSort()`` of ``mergeSort.cu``; its kernels use cooperative
groups' ``cg::thread_block``). verify builds the ``.cpp`` file against its CUDA host shim, as
a build finds the toolkit's headers for it, so both files' calls reach the same emulated
devices; the kernels' ``cg::sync(cta)`` is the block's barrier (issue 29). (One build and
run of the program: verify builds the original and the rewrite the same way.)"""

from __future__ import annotations

import shutil

import pytest

from s2s.verify.cuda_host import build_program, run

SORTER_H = """#ifndef SORTER_H
#define SORTER_H
void reverse_blocks(int *d_dst, const int *d_src, int n);
#endif
"""
SORTER_CU = """#include <cooperative_groups.h>
#include "sorter.h"
namespace cg = cooperative_groups;
#define BLOCK 64

__device__ void flip(int *s, cg::thread_block cta)
{
    int v = s[cta.size() - 1 - cta.thread_rank()];
    cg::sync(cta);
    s[cta.thread_rank()] = v;
}

__global__ void reverse_kernel(int *dst, const int *src, int n)
{
    __shared__ int s[BLOCK];
    cg::thread_block cta = cg::this_thread_block();
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = i < n ? src[i] : -1;
    cg::sync(cta);
    flip(s, cta);
    cta.sync();
    if (i < n)
        dst[i] = s[threadIdx.x];
}

void reverse_blocks(int *d_dst, const int *d_src, int n)
{
    reverse_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_dst, d_src, n);
}
"""
MAIN_CPP = """#include <cstdio>
#include <cuda_runtime.h>
#include "sorter.h"

int main()
{
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; i++)
        h[i] = 3 * i + 1;
    int *d_src, *d_dst;
    cudaMalloc((void **)&d_src, n * sizeof(int));
    cudaMalloc((void **)&d_dst, n * sizeof(int));
    cudaMemcpy(d_src, h, n * sizeof(int), cudaMemcpyHostToDevice);
    reverse_blocks(d_dst, d_src, n);
    cudaDeviceSynchronize();
    cudaMemcpy(h, d_dst, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("h[0] = %d, h[63] = %d, h[64] = %d\\n", h[0], h[63], h[64]);
    cudaFree(d_src);
    cudaFree(d_dst);
    return 0;
}
"""


def test_a_cpp_file_with_runtime_calls_and_cooperative_groups_runs(tmp_path, monkeypatch):
    if shutil.which("g++") is None:
        pytest.skip("no g++ to build the host code")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    for name, text in (("sorter.h", SORTER_H), ("sorter.cu", SORTER_CU), ("main.cpp", MAIN_CPP)):
        (tmp_path / name).write_text(text)
    exe = build_program([str(tmp_path / "sorter.cu")], tmp_path / "build",
                        hosts=[str(tmp_path / "main.cpp")])
    ran = run(exe, devices=2, timeout=120)
    assert ran.returncode == 0, ran.stderr
    # the block's barrier held: each block of 64 reversed (h = 3i + 1)
    assert ran.stdout == "h[0] = 190, h[63] = 1, h[64] = 382\n", ran
    # the .cpp file's calls reached the shim: 2 allocations, one copy each way
    assert (ran.counts["cudaMalloc"], ran.counts["cudaMemcpy"], ran.counts["launch"]) == (2, 2, 1)
