/*
 * bias_gelu.cu -- bias add followed by GELU (tanh approximation), two map kernels.
 *
 *     h = x + b[column]       (bias_add)
 *     y = gelu(h)             (gelu_kernel)
 *
 * h lives only on the device: a fused kernel keeps it in a register and
 * never allocates it.
 *
 * Usage: bias_gelu [rows cols]     (default 1024 768)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void bias_add(const float *x, const float *b, float *h, int cols, int total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total)
        h[i] = x[i] + b[i % cols];
}

__global__ void gelu_kernel(const float *h, float *y, int total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) {
        float v = h[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

int main(int argc, char **argv)
{
    int rows = 1024, cols = 768;
    if (argc > 2) {
        rows = atoi(argv[1]);
        cols = atoi(argv[2]);
    }
    int total = rows * cols;
    size_t bytes = (size_t)total * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    float *h_b = (float *)malloc((size_t)cols * sizeof(float));
    for (int k = 0; k < total; k++)
        h_x[k] = 0.125f * (float)((k * 3) % 41 - 20);
    for (int c = 0; c < cols; c++)
        h_b[c] = 0.25f * (float)(c % 7 - 3);
    float *d_x, *d_b, *d_h, *d_y;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_b, (size_t)cols * sizeof(float));
    cudaMalloc(&d_h, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, (size_t)cols * sizeof(float), cudaMemcpyHostToDevice);
    int grid = (total + THREADS - 1) / THREADS;
    bias_add<<<grid, THREADS>>>(d_x, d_b, d_h, cols, total);
    gelu_kernel<<<grid, THREADS>>>(d_h, d_y, total);
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);
    double total_sum = 0.0;
    for (int k = 0; k < total; k++)
        total_sum += h_y[k] * (double)((k % 3) + 1);
    printf("bias_gelu rows=%d cols=%d\n", rows, cols);
    printf("checksum %.6f\n", total_sum);
    cudaFree(d_x);
    cudaFree(d_b);
    cudaFree(d_h);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    free(h_b);
    return 0;
}
