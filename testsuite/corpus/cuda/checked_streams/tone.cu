// tone.cu: tone-maps a synthetic 8-bit image and lifts two colour channels towards its
// luma, one channel per stream. Runtime calls are checked the vendor-sample way
// (common/status_check.h), timings are printed with events.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "status_check.h"

#define TONE_BLOCK 128
#include "tone_kernels.cuh"

static double checksum(const float *v, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += v[i] * ((i % 7) + 1);
    return sum;
}

int main(int argc, char **argv)
{
    int width = argc > 1 ? atoi(argv[1]) : 256;
    int height = argc > 2 ? atoi(argv[2]) : 64;
    int pixels = width * height;
    size_t bytes = pixels * sizeof(float);

    unsigned char *h_raw = (unsigned char *)malloc(pixels);
    float *h_red = (float *)malloc(bytes);
    float *h_green = (float *)malloc(bytes);
    for (int p = 0; p < pixels; ++p) {
        h_raw[p] = (unsigned char)((p * 37 + p / width * 11) % 256);
        h_red[p] = (p % width) / (float)width;
        h_green[p] = (p / width) / (float)height;
    }

    unsigned char *d_raw;
    float *d_level, *d_luma, *d_red, *d_green;
    CHECK_STATUS(cudaMalloc((void **)&d_raw, pixels));
    CHECK_STATUS(cudaMalloc((void **)&d_level, bytes));
    CHECK_STATUS(cudaMalloc((void **)&d_luma, bytes));
    CHECK_STATUS(cudaMalloc((void **)&d_red, bytes));
    CHECK_STATUS(cudaMalloc((void **)&d_green, bytes));
    CHECK_STATUS(cudaMemcpy(d_raw, h_raw, pixels, cudaMemcpyHostToDevice));
    CHECK_STATUS(cudaMemcpy(d_red, h_red, bytes, cudaMemcpyHostToDevice));
    CHECK_STATUS(cudaMemcpy(d_green, h_green, bytes, cudaMemcpyHostToDevice));

    cudaStream_t lanes[2];
    CHECK_STATUS(cudaStreamCreate(&lanes[0]));
    CHECK_STATUS(cudaStreamCreate(&lanes[1]));
    cudaEvent_t start, stop;
    CHECK_STATUS(cudaEventCreate(&start));
    CHECK_STATUS(cudaEventCreate(&stop));

    dim3 grid((pixels + TONE_BLOCK - 1) / TONE_BLOCK), block(TONE_BLOCK);
    CHECK_STATUS(cudaEventRecord(start, 0));
    normalize_levels<<<grid, block>>>(d_level, d_raw, 1.0f / 255.0f, pixels);
    CHECK_STATUS(cudaDeviceSynchronize());
    gamma_curve<<<grid, block>>>(d_luma, d_level, 0.6f, pixels);
    CHECK_LAUNCH("gamma_curve");

    lift_channel<<<grid, block, 0, lanes[0]>>>(d_red, d_luma, 0.25f, pixels);
    clamp_channel<<<grid, block, 0, lanes[0]>>>(d_red, 0.05f, 0.95f, pixels);
    lift_channel<<<grid, block, 0, lanes[1]>>>(d_green, d_luma, 0.5f, pixels);
    clamp_channel<<<grid, block, 0, lanes[1]>>>(d_green, 0.1f, 0.9f, pixels);
    CHECK_LAUNCH("channels");
    CHECK_STATUS(cudaStreamSynchronize(lanes[0]));
    CHECK_STATUS(cudaStreamSynchronize(lanes[1]));
    CHECK_STATUS(cudaEventRecord(stop, 0));
    CHECK_STATUS(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK_STATUS(cudaEventElapsedTime(&ms, start, stop));

    float *h_luma = (float *)malloc(bytes);
    CHECK_STATUS(cudaMemcpy(h_luma, d_luma, bytes, cudaMemcpyDeviceToHost));
    CHECK_STATUS(cudaMemcpy(h_red, d_red, bytes, cudaMemcpyDeviceToHost));
    CHECK_STATUS(cudaMemcpy(h_green, d_green, bytes, cudaMemcpyDeviceToHost));
    printf("image %d x %d\n", width, height);
    printf("luma checksum %.4f\n", checksum(h_luma, pixels));
    printf("red checksum %.4f\n", checksum(h_red, pixels));
    printf("green checksum %.4f\n", checksum(h_green, pixels));
    printf("Processing time: %.3f ms\n", ms);

    CHECK_STATUS(cudaStreamDestroy(lanes[0]));
    CHECK_STATUS(cudaStreamDestroy(lanes[1]));
    CHECK_STATUS(cudaFree(d_raw));
    CHECK_STATUS(cudaFree(d_level));
    CHECK_STATUS(cudaFree(d_luma));
    CHECK_STATUS(cudaFree(d_red));
    CHECK_STATUS(cudaFree(d_green));
    free(h_raw);
    free(h_red);
    free(h_green);
    free(h_luma);
    return 0;
}
