// integrate.cuh: the kernels of one time step.
#pragma once
#include "physics.cuh"

__global__ void accelerate(const float *pos, float *vel, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        vel[i] = kDamping * (vel[i] + kDt * spring(pos[i]));
}

__global__ void advance(float *pos, const float *vel, int n, Box box)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pos[i] = reflect(pos[i] + kDt * vel[i], box);
}
