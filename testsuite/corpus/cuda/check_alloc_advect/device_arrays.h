// device_arrays.h -- fresh device arrays for the solver, and uploads into them. Each helper
// checks its runtime call through CUDA_CHECK; device_floats also stops with the array's name
// when it got nothing.
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

static void upload_floats(float *dst, const float *src, int count)
{
    CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyHostToDevice));
}

#endif
