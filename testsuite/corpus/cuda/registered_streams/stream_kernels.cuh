// stream_kernels.cuh: the kernels, compiled inside registered_streams.cu (they use its
// INNER_STEPS and check_value()).
#pragma once

__global__ void bump(int *data, int inc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = data[i];
        for (int k = 0; k < INNER_STEPS; ++k) v += inc;
        data[i] = v;
    }
}

__global__ void fill_tail(int *data, int from, int value, int n)
{
    int i = from + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = check_value(data[i], value);
}
