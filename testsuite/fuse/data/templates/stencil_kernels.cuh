// Template kernels in a project header: a 3-point average and a clamp, for any element type.
#pragma once
#include <cuda_runtime.h>

template <typename T>
__global__ void smooth3(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / T(3);
    else if (i < n)
        out[i] = in[i];
}

template <typename T>
__global__ void clamp_to(T *x, T lo, T hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}
