// gpu_util.h -- the project's small helpers over the CUDA runtime: a check after each kernel,
// a launch macro that checks too, and copies in and out by element count.
#ifndef GPU_UTIL_H
#define GPU_UTIL_H

#include <cstdio>
#include <cstdlib>

static void check_kernel(const char *what)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel %s failed: %s\n", what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

// launch, then check the launch's error under the kernel's name
#define LAUNCH_CHECK(kernel, grid, block, ...)                                  \
    do {                                                                        \
        kernel<<<grid, block>>>(__VA_ARGS__);                                   \
        check_kernel(#kernel);                                                  \
    } while (0)

static void upload(float *dst, const float *src, int count)
{
    cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyHostToDevice);
}

static void download(float *dst, const float *src, int count)
{
    cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyDeviceToHost);
}

#endif
