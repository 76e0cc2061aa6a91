// tone_kernels.cuh: per-pixel tone operations; included by tone.cu only (uses TONE_BLOCK).
#pragma once

__global__ void normalize_levels(float *level, const unsigned char *raw, float scale, int pixels)
{
    int p = blockIdx.x * TONE_BLOCK + threadIdx.x;
    if (p < pixels)
        level[p] = raw[p] * scale;
}

__global__ void gamma_curve(float *out, const float *level, float gamma, int pixels)
{
    int p = blockIdx.x * TONE_BLOCK + threadIdx.x;
    if (p < pixels) {
        float v = level[p];
        out[p] = v * v * gamma + v * (1.0f - gamma);
    }
}

__global__ void lift_channel(float *channel, const float *luma, float lift, int pixels)
{
    int p = blockIdx.x * TONE_BLOCK + threadIdx.x;
    if (p < pixels)
        channel[p] = channel[p] * (1.0f - lift) + luma[p] * lift;
}

__global__ void clamp_channel(float *channel, float low, float high, int pixels)
{
    int p = blockIdx.x * TONE_BLOCK + threadIdx.x;
    if (p < pixels) {
        float v = channel[p];
        channel[p] = v < low ? low : (v > high ? high : v);
    }
}
