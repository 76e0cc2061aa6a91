/*
 * mgpu_errors.cpp -- the error codes a program rewritten by `s2s mgpu` sees:
 * the CUDA calls go through runtime/include/s2s_mgpu.h (redirected by macros,
 * as the rewrite does) to the runtime's C interface.  Prints one name=value
 * line per call: the cudaError_t it returned.
 *
 * build: g++ -std=c++14 -Ifake_cuda mgpu_errors.cpp $(python -m runtime.capi_build --flags)
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <s2s_mgpu.h>
#define cudaMalloc s2s_mgpu::Malloc
#define cudaFree s2s_mgpu::Free
#define cudaMemcpy s2s_mgpu::Memcpy
#define cudaMemset s2s_mgpu::Memset
#define cudaGetLastError s2s_mgpu::GetLastError
#define cudaGetErrorString s2s_mgpu::GetErrorString

static void show(const char *name, cudaError_t error) { printf("%s=%d\n", name, (int)error); }

int main()
{
    static float host[1024];
    float *d = NULL;
    show("malloc_size_max", cudaMalloc(&d, SIZE_MAX));
    show("last_error", cudaGetLastError());
    show("last_error_again", cudaGetLastError());
    show("malloc", cudaMalloc(&d, sizeof host));
    show("memcpy", cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));
    show("free", cudaFree(d));
    show("memcpy_default_after_free", cudaMemcpy(host, d, sizeof host, cudaMemcpyDefault));
    printf("message=%s\n", cudaGetErrorString(cudaErrorInvalidValue));
    show("memset_after_free", cudaMemset(d, 0, sizeof host));
    show("double_free", cudaFree(d));
    show("bad_kind", cudaMemcpy(host, host, sizeof host, (cudaMemcpyKind)7));
    show("free_null", cudaFree(NULL));
    show("malloc_after", cudaMalloc(&d, sizeof host));
    show("free_after", cudaFree(d));
    return 0;
}

static const s2s_mgpu_unit &s2s_mgpu_this_unit()
{
    static const s2s_mgpu_unit unit = {"none.cu", "", "", NULL, 0};
    return unit;
}
