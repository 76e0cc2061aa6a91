// Issue 19, item 5: kernels with __restrict__ and const parameters, and a read-only
// pointer declared without const; fused code must compile (nvcc) and keep the promises.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void saxpy(const float *__restrict__ x, float *__restrict__ y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void clamp(float *y, float *lo, int n)   // lo is only read
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] < lo[i] ? lo[i] : y[i];
}

int main()
{
    const int n = 1 << 16;
    size_t bytes = n * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    float *h_lo = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.5f * (i % 7);
        h_y[i] = 1.0f;
        h_lo[i] = 2.0f;
    }
    float *d_x, *d_y, *d_lo;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);
    cudaMalloc((void **)&d_lo, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_lo, h_lo, bytes, cudaMemcpyHostToDevice);
    saxpy<<<(n + 255) / 256, 256>>>(d_x, d_y, 2.0f, n);
    clamp<<<(n + 255) / 256, 256>>>(d_y, d_lo, n);
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);
    printf("y[7] = %f\n", h_y[7]);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_lo);
    free(h_x);
    free(h_y);
    free(h_lo);
    return 0;
}
