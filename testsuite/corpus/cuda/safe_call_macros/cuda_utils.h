// cuda_utils.h -- error-checking macros of the kind most CUDA projects carry.
#ifndef CUDA_UTILS_H
#define CUDA_UTILS_H

#include <cstdio>
#include <cstdlib>

#define CUDA_SAFE_CALL(call)                                                   \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

#endif
