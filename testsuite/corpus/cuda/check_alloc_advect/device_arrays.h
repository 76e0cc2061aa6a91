// device_arrays.h -- fresh device arrays for the solver. Each helper checks its cudaMalloc
// through CUDA_CHECK and stops with the array's name when it got nothing.
#ifndef DEVICE_ARRAYS_H
#define DEVICE_ARRAYS_H

#include "cuda_check.h"

static float *device_floats(int count, const char *what)
{
    float *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, count * sizeof(float)));
    if (d == NULL) {
        fprintf(stderr, "device_floats: no device array for %s\n", what);
        exit(EXIT_FAILURE);
    }
    return d;
}

static unsigned char *device_mask(size_t cells)
{
    unsigned char *m;
    CUDA_CHECK(cudaMalloc((void **)&m, cells * sizeof(unsigned char)));
    return m;
}

#endif
