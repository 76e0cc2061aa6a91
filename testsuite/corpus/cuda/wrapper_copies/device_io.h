// device_io.h -- the project's thin wrappers over the CUDA runtime: allocation, copies in and
// out, and an error check after each kernel.
#ifndef DEVICE_IO_H
#define DEVICE_IO_H

#include <cstdio>
#include <cstdlib>

static float *device_alloc(int n)
{
    float *p = 0;
    if (cudaMalloc((void **)&p, n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc of %d floats failed\n", n);
        exit(1);
    }
    return p;
}

static void copy_to_device(float *dst, const float *src, int n)
{
    cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyHostToDevice);
}

static void copy_to_host(float *dst, const float *src, int n)
{
    cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost);
}

static void after_kernel(const char *name)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", name, cudaGetErrorString(err));
        exit(1);
    }
}

#endif
