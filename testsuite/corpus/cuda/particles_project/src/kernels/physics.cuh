// physics.cuh: device helpers used by the integration kernels.
#pragma once
#include "params.h"

__device__ __forceinline__ float reflect(float x, Box box)
{
    if (x < box.lo)
        return 2.0f * box.lo - x;
    if (x > box.hi)
        return 2.0f * box.hi - x;
    return x;
}

__device__ float spring(float x) { return -0.5f * x; }
