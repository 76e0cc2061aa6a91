// launch_macros.h -- the project's launch helpers: every kernel is launched through LAUNCH,
// which forwards to <<<...>>>, and checked afterwards with KERNEL_CHECK.
#ifndef LAUNCH_MACROS_H
#define LAUNCH_MACROS_H

#include <cstdio>
#include <cstdlib>

#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)

#define KERNEL_CHECK(name)                                                   \
    do {                                                                     \
        cudaError_t err_ = cudaGetLastError();                               \
        if (err_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s failed: %s\n", name, cudaGetErrorString(err_)); \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

#endif
