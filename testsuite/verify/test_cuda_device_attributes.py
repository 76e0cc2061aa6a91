"""``cudaDeviceGetAttribute``, which cuda-samples' helper_cuda.h calls in ``findCudaDevice``
and ``gpuDeviceInit`` (issue 29: every cuda-samples program including it was refused by mgpu,
"not supported by the s2s runtime", and verify's host shim had neither the call nor the
toolkit's include guard that helper_cuda.h tests before it defines ``checkCudaErrors``), in a
header included as ``<gpu_helpers.h>`` through ``-I`` (the prologue that redirects its calls
goes before that include, as before a quoted one), ``cudaProfilerStart/Stop``
(matrixMul, asyncAPI) and ``cudaEventQuery`` (asyncAPI).

The runtime (rewritten program) and verify's shim (original) answer from the same device
properties (runtime/include/s2s_device_prop.h), so a program printing them prints the same
before and after the rewrite."""

from __future__ import annotations

import json
import shutil

import pytest

from s2s.cli.main import main

HELPERS_H = r"""#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
/* (guarded as helper_cuda.h guards its host code: the kernels' compile for cpu devices,
   which has no runtime API, skips it) */
#if defined(__DRIVER_TYPES_H__) && defined(__CUDA_RUNTIME_H__)
#define CHECK(call) check_status((call), #call)
static void check_status(cudaError_t status, const char *what)
{
    if (status != cudaSuccess) {
        printf("%s failed: %s\n", what, cudaGetErrorName(status));
        exit(1);
    }
}
inline int describe_device(int device)
{
    int major = 0, minor = 0, sms = 0, mode = -1, threads = 0;
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device));
    CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, device));
    printf("sm %d.%d, %d SMs, mode %d%s, block %d\n", major, minor, sms, mode,
           mode == cudaComputeModeProhibited ? " (prohibited)" : "", threads);
    return threads;
}
#endif
"""
PROGRAM = r"""#include <cuda_profiler_api.h>
#include <gpu_helpers.h>
__global__ void fill(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v * i;
}
int main()
{
    int threads = describe_device(0);
    const int n = 1000;
    float *d, h[n];
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaProfilerStart());
    fill<<<(n + 127) / 128, threads / 8>>>(d, n, 0.5f);   /* 8 blocks of 128 */
    CHECK(cudaProfilerStop());
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    CHECK(cudaEventRecord(done, 0));
    long polls = 0;
    while (cudaEventQuery(done) == cudaErrorNotReady)   /* (asyncAPI's wait: recorded is done) */
        polls++;
    printf("polls = %ld\n", polls);
    CHECK(cudaEventDestroy(done));
    CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("h[999] = %.1f\n", h[n - 1]);
    CHECK(cudaFree(d));
    return 0;
}
"""


def test_device_attributes_verify_through_mgpu(capsys, tmp_path, monkeypatch, devices=2):
    # (on 4 devices too: the corpus program sample_helpers_blur, built the same way)
    if shutil.which("nvcc") is None or shutil.which("g++") is None:
        pytest.skip("nvcc or g++ not found: the rewrite and the original are built with them")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "gpu_helpers.h").write_text(HELPERS_H)
    (tmp_path / "attr.cu").write_text(PROGRAM)
    code = main(["verify", "--format", "json", "--passes", "mgpu", "--devices", str(devices),
                 "attr.cu", "--", "-Iinclude"])
    out, err = capsys.readouterr()
    [verdict] = json.loads(out)["programs"]
    assert code == 0 and verdict["ok"], err
    assert verdict["changed"] == ["attr.cu"] and verdict["differences"] == []
    assert verdict["rewritten"]["devices"]["split_launches"] == 1
    assert verdict["original"]["returncode"] == verdict["rewritten"]["returncode"] == 0


def test_an_aligned_struct_builds_and_runs_under_verifys_shim(tmp_path, shim_ready):
    """``typedef struct __align__(8) {...}`` (cuda-samples' alignedTypes): verify's host shim
    spells nvcc's ``__align__`` as the cpu backend does; the original did not build before.
    (The shim's build and run alone, as verify builds the original: no pass to run.)"""
    from s2s.verify.cuda_host import build, run

    path = tmp_path / "pairs.cu"
    path.write_text(r"""#include <cstdio>
typedef struct __align__(8) { int a, b; } pair_t;
__global__ void swap_pairs(pair_t *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { int t = p[i].a; p[i].a = p[i].b; p[i].b = t; }
}
int main()
{
    const int n = 256;
    pair_t h[n], *d;
    for (int i = 0; i < n; i++) { h[i].a = i; h[i].b = -i; }
    cudaMalloc((void **)&d, n * sizeof(pair_t));
    cudaMemcpy(d, h, n * sizeof(pair_t), cudaMemcpyHostToDevice);
    swap_pairs<<<n / 64, 64>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(pair_t), cudaMemcpyDeviceToHost);
    printf("%d %d align %d\n", h[5].a, h[5].b, (int)alignof(pair_t));
    cudaFree(d);
    return 0;
}
""")
    ran = run(build(str(path), tmp_path / "build"))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "-5 5 align 8\n"
