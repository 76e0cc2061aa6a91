/* 1-D convolution with the filter in constant memory (cudaMemcpyToSymbol),
   the output zeroed with cudaMemset; a CPU reference checks the result. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define RADIUS 4
#define WIDTH (2 * RADIUS + 1)
#define THREADS 256

__constant__ float filter[WIDTH];
__constant__ int length;

__device__ float tap(const float *in, int i, int k)
{
    int j = i + k - RADIUS;
    return (j >= 0 && j < length) ? in[j] * filter[k] : 0.0f;
}

__global__ void convolve(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < WIDTH; ++k)
            acc += tap(in, i, k);
        out[i] = acc;
    }
}

int main(void)
{
    const int n = 50000;
    float h_filter[WIDTH];
    float check[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
        h_filter[k] = 1.0f / (1 + abs(k - RADIUS));
    float *in = (float *)malloc(n * sizeof(float));
    float *out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i)
        in[i] = sinf(0.001f * i);

    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_out, n * sizeof(float));
    cudaMemset(d_out, 0, n * sizeof(float));
    cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(filter, h_filter, sizeof(h_filter));
    cudaMemcpyToSymbol(length, &n, sizeof(int));
    cudaMemcpyFromSymbol(check, filter, sizeof(check));
    convolve<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_in, d_out, n);
    cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = 0; k < WIDTH; ++k) {
            int j = i + k - RADIUS;
            if (j >= 0 && j < n)
                acc += in[j] * h_filter[k];
        }
        if (fabsf(acc - out[i]) > 1e-4f)
            ++bad;
    }
    printf("filter round trip: %s\n", check[RADIUS] == h_filter[RADIUS] ? "ok" : "wrong");
    printf("out[100] = %.6f, mismatches = %d\n", out[100], bad);
    cudaFree(d_in);
    cudaFree(d_out);
    free(in);
    free(out);
    return 0;
}
