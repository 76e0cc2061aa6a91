// gpu_mem.h -- the project's device-memory helpers: each returns a fresh device array or
// stops the program with a message naming the array.
#ifndef GPU_MEM_H
#define GPU_MEM_H

#include <cstdio>
#include <cstdlib>

static double *gpu_alloc(size_t count, const char *what)
{
    double *ptr = NULL;
    if (cudaMalloc((void **)&ptr, count * sizeof(double)) != cudaSuccess) {
        fprintf(stderr, "gpu_alloc: no room for %s (%lu doubles)\n", what, (unsigned long)count);
        exit(EXIT_FAILURE);
    }
    return ptr;
}

static int *gpu_alloc_flags(int count)
{
    int *flags;
    cudaMalloc((void **)&flags, count * sizeof(int));
    return flags;
}

#endif
