/*
 * horner.cu -- evaluate y = a0 + x*(a1 + x*(a2 + ... + x*a10)) element-wise
 * on the GPU by Horner's rule, one device vector per coefficient.
 *
 * Straight-line host code with many small operands (the Horner row of
 * Kessler's Table 4): eleven coefficient vectors and x are copied to the
 * device one by one, twenty kernels alternate t = y * x and y = t + a_k,
 * and y comes back.  `s2s transfers` turns the twelve uploads into one and
 * the fourteen cudaMalloc calls into one pooled allocation.
 *
 * Coefficients and x are multiples of 1/8 in [-1, 1) and [-1/2, 1/2), so
 * the values stay small; the printed checksum is a double sum of floats.
 *
 * Usage: horner [n]            (default n = 4096)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void vmul(int n, const float *y, const float *x, float *t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t[i] = y[i] * x[i];
}

__global__ void vadd(int n, const float *t, const float *a, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = t[i] + a[i];
}

int main(int argc, char **argv)
{
    int n = 4096;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n>0]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * sizeof(float);

    float *h_a0 = (float *)malloc(bytes);
    float *h_a1 = (float *)malloc(bytes);
    float *h_a2 = (float *)malloc(bytes);
    float *h_a3 = (float *)malloc(bytes);
    float *h_a4 = (float *)malloc(bytes);
    float *h_a5 = (float *)malloc(bytes);
    float *h_a6 = (float *)malloc(bytes);
    float *h_a7 = (float *)malloc(bytes);
    float *h_a8 = (float *)malloc(bytes);
    float *h_a9 = (float *)malloc(bytes);
    float *h_a10 = (float *)malloc(bytes);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    if (!h_a0 || !h_a1 || !h_a2 || !h_a3 ||
        !h_a4 || !h_a5 || !h_a6 || !h_a7 || !h_a8 ||
        !h_a9 || !h_a10 || !h_x || !h_y) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        h_a0[i] = 0.125f * (float)((i + 1) % 16 - 8);
        h_a1[i] = 0.125f * (float)((i + 4) % 16 - 8);
        h_a2[i] = 0.125f * (float)((i + 7) % 16 - 8);
        h_a3[i] = 0.125f * (float)((i + 10) % 16 - 8);
        h_a4[i] = 0.125f * (float)((i + 13) % 16 - 8);
        h_a5[i] = 0.125f * (float)((i + 16) % 16 - 8);
        h_a6[i] = 0.125f * (float)((i + 19) % 16 - 8);
        h_a7[i] = 0.125f * (float)((i + 22) % 16 - 8);
        h_a8[i] = 0.125f * (float)((i + 25) % 16 - 8);
        h_a9[i] = 0.125f * (float)((i + 28) % 16 - 8);
        h_a10[i] = 0.125f * (float)((i + 31) % 16 - 8);
        h_x[i] = 0.0625f * (float)(i % 16 - 8);
    }

    float *d_a0, *d_a1, *d_a2, *d_a3, *d_a4, *d_a5;
    float *d_a6, *d_a7, *d_a8, *d_a9, *d_a10;
    float *d_x, *d_t, *d_y;
    cudaMalloc((void **)&d_a0, bytes);
    cudaMalloc((void **)&d_a1, bytes);
    cudaMalloc((void **)&d_a2, bytes);
    cudaMalloc((void **)&d_a3, bytes);
    cudaMalloc((void **)&d_a4, bytes);
    cudaMalloc((void **)&d_a5, bytes);
    cudaMalloc((void **)&d_a6, bytes);
    cudaMalloc((void **)&d_a7, bytes);
    cudaMalloc((void **)&d_a8, bytes);
    cudaMalloc((void **)&d_a9, bytes);
    cudaMalloc((void **)&d_a10, bytes);
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_t, bytes);
    cudaMalloc((void **)&d_y, bytes);

    cudaMemcpy(d_a0, h_a0, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a1, h_a1, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a2, h_a2, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a3, h_a3, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a4, h_a4, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a5, h_a5, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a6, h_a6, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a7, h_a7, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a8, h_a8, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a9, h_a9, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_a10, h_a10, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);

    int blocks = (n + BLOCK - 1) / BLOCK;
    vmul<<<blocks, BLOCK>>>(n, d_a10, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a9, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a8, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a7, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a6, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a5, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a4, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a3, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a2, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a1, d_y);
    vmul<<<blocks, BLOCK>>>(n, d_y, d_x, d_t);
    vadd<<<blocks, BLOCK>>>(n, d_t, d_a0, d_y);

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);

    double checksum = 0.0;
    for (int i = 0; i < n; ++i)
        checksum += h_y[i];
    printf("horner n=%d degree=10\n", n);
    printf("checksum %.10g\n", checksum);
    int probe[4] = {0, 1, n / 2, n - 1};
    for (int k = 0; k < 4; ++k)
        printf("y[%d] = %.9g\n", probe[k], h_y[probe[k]]);

    cudaFree(d_a0);
    cudaFree(d_a1);
    cudaFree(d_a2);
    cudaFree(d_a3);
    cudaFree(d_a4);
    cudaFree(d_a5);
    cudaFree(d_a6);
    cudaFree(d_a7);
    cudaFree(d_a8);
    cudaFree(d_a9);
    cudaFree(d_a10);
    cudaFree(d_x);
    cudaFree(d_t);
    cudaFree(d_y);
    free(h_a0);
    free(h_a1);
    free(h_a2);
    free(h_a3);
    free(h_a4);
    free(h_a5);
    free(h_a6);
    free(h_a7);
    free(h_a8);
    free(h_a9);
    free(h_a10);
    free(h_x);
    free(h_y);
    return 0;
}
