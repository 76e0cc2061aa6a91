/* kernels.cu: the program's kernels; no host CUDA code */
#include "ops.h"

__global__ void fill_ramp(float *x, float step, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = step * i;
}

__global__ void add_into(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += x[i];
}
