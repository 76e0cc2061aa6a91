// cuda_check.h -- the project's error check: every runtime call goes through CUDA_CHECK,
// which reports the file and line of the failing call and stops.
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t status_ = (call);                                           \
        if (status_ != cudaSuccess) {                                           \
            fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__,    \
                    cudaGetErrorString(status_));                               \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

#endif
