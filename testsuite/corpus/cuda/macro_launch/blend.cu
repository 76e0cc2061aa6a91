// blend.cu -- cross-fade of two signals with a gain stage, each kernel launched through the
// project's LAUNCH macro (launch_macros.h); timing printed with events.
#include "launch_macros.h"

#define THREADS 64

__global__ void gain(float *x, float g, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = g * x[i];
}

__global__ void blend(const float *a, const float *b, float *out, float w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (1.0f - w) * a[i] + w * b[i];
}

__global__ void offset(float *out, float c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += c;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        h_a[i] = (float)(i % 17) / 17.0f;
        h_b[i] = (float)(i % 5) / 5.0f;
    }
    float *d_a, *d_b, *d_out;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);
    int blocks = DIV_UP(n, THREADS);
    for (int pass = 0; pass < 3; pass++) {
        LAUNCH(gain, blocks, THREADS, d_a, 0.9f, n);
        LAUNCH(blend, blocks, THREADS, d_a, d_b, d_out, 0.25f * pass, n);
        LAUNCH(offset, blocks, THREADS, d_out, 0.5f, n);
        KERNEL_CHECK("blend pass");
    }
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += h_out[i];
    printf("n = %d, checksum = %.6f\n", n, sum);
    printf("kernel time: %.3f ms\n", ms);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
    free(h_a);
    free(h_b);
    free(h_out);
    return 0;
}
