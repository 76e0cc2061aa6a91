/*
 * softmax_chain.cu -- row-wise softmax as three kernels, one block per row.
 *
 *     m[r] = max_c x[r][c]                 (row_max: block reduction)
 *     e = exp(x - m[r]), s[r] = sum_c e    (exp_sum: map + block reduction)
 *     y = e / s[r]                         (normalize: map)
 *
 * Each kernel reads per-row values that the previous kernel's block for the
 * same row produced, so a fused kernel passes m and s through shared memory
 * with a barrier instead of global memory.
 *
 * Usage: softmax_chain [rows cols]     (default 512 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 128

__global__ void row_max(const float *x, float *m, int cols)
{
    __shared__ float red[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float v = -3.0e38f;
    for (int c = tid; c < cols; c += blockDim.x)
        v = fmaxf(v, x[row * cols + c]);
    red[tid] = v;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h >>= 1) {
        if (tid < h)
            red[tid] = fmaxf(red[tid], red[tid + h]);
        __syncthreads();
    }
    if (tid == 0)
        m[row] = red[0];
}

__global__ void exp_sum(const float *x, const float *m, float *e, float *s, int cols)
{
    __shared__ float red[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float mx = m[row];
    float acc = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        float t = expf(x[row * cols + c] - mx);
        e[row * cols + c] = t;
        acc += t;
    }
    red[tid] = acc;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h >>= 1) {
        if (tid < h)
            red[tid] += red[tid + h];
        __syncthreads();
    }
    if (tid == 0)
        s[row] = red[0];
}

__global__ void normalize(const float *e, const float *s, float *y, int cols)
{
    int row = blockIdx.x;
    float inv = 1.0f / s[row];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[row * cols + c] = e[row * cols + c] * inv;
}

int main(int argc, char **argv)
{
    int rows = 512, cols = 1000;
    if (argc > 2) {
        rows = atoi(argv[1]);
        cols = atoi(argv[2]);
    }
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    for (int k = 0; k < rows * cols; k++)
        h_x[k] = 0.0625f * (float)((k * 7) % 61 - 30);
    float *d_x, *d_m, *d_e, *d_s, *d_y;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_m, (size_t)rows * sizeof(float));
    cudaMalloc(&d_e, bytes);
    cudaMalloc(&d_s, (size_t)rows * sizeof(float));
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    row_max<<<rows, THREADS>>>(d_x, d_m, cols);
    exp_sum<<<rows, THREADS>>>(d_x, d_m, d_e, d_s, cols);
    normalize<<<rows, THREADS>>>(d_e, d_s, d_y, cols);
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);
    double total = 0.0, weighted = 0.0;
    for (int k = 0; k < rows * cols; k++) {
        total += h_y[k];
        weighted += h_y[k] * (double)(k % cols);
    }
    printf("softmax_chain rows=%d cols=%d\n", rows, cols);
    printf("sum %.6f weighted %.4f\n", total, weighted);
    cudaFree(d_x);
    cudaFree(d_m);
    cudaFree(d_e);
    cudaFree(d_s);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
