/*
 * layernorm.cu -- layer normalisation of each row as three kernels, one block per row.
 *
 *     mean[r] = sum_c x / cols                             (row_mean)
 *     rstd[r] = 1 / sqrt(sum_c (x - mean)^2 / cols + eps)  (row_rstd)
 *     y = (x - mean[r]) * rstd[r] * gamma[c] + beta[c]     (apply_norm)
 *
 * Usage: layernorm [rows cols]      (default 512 768)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 128

__global__ void row_mean(const float *x, float *mean, int cols)
{
    __shared__ float red[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        acc += x[row * cols + c];
    red[tid] = acc;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h >>= 1) {
        if (tid < h)
            red[tid] += red[tid + h];
        __syncthreads();
    }
    if (tid == 0)
        mean[row] = red[0] / (float)cols;
}

__global__ void row_rstd(const float *x, const float *mean, float *rstd, float eps, int cols)
{
    __shared__ float red[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float mu = mean[row];
    float acc = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        float d = x[row * cols + c] - mu;
        acc += d * d;
    }
    red[tid] = acc;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h >>= 1) {
        if (tid < h)
            red[tid] += red[tid + h];
        __syncthreads();
    }
    if (tid == 0)
        rstd[row] = rsqrtf(red[0] / (float)cols + eps);
}

__global__ void apply_norm(const float *x, const float *mean, const float *rstd,
                           const float *gamma, const float *beta, float *y, int cols)
{
    int row = blockIdx.x;
    float mu = mean[row];
    float r = rstd[row];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[row * cols + c] = (x[row * cols + c] - mu) * r * gamma[c] + beta[c];
}

int main(int argc, char **argv)
{
    int rows = 512, cols = 768;
    if (argc > 2) {
        rows = atoi(argv[1]);
        cols = atoi(argv[2]);
    }
    const float eps = 0.00001f;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    size_t row_bytes = (size_t)cols * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    float *h_gamma = (float *)malloc(row_bytes);
    float *h_beta = (float *)malloc(row_bytes);
    for (int k = 0; k < rows * cols; k++)
        h_x[k] = 0.25f * (float)((k * 5) % 23 - 11);
    for (int c = 0; c < cols; c++) {
        h_gamma[c] = 0.5f + 0.125f * (float)(c % 5);
        h_beta[c] = 0.25f * (float)(c % 3 - 1);
    }
    float *d_x, *d_mean, *d_rstd, *d_gamma, *d_beta, *d_y;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_mean, (size_t)rows * sizeof(float));
    cudaMalloc(&d_rstd, (size_t)rows * sizeof(float));
    cudaMalloc(&d_gamma, row_bytes);
    cudaMalloc(&d_beta, row_bytes);
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_gamma, h_gamma, row_bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_beta, h_beta, row_bytes, cudaMemcpyHostToDevice);
    row_mean<<<rows, THREADS>>>(d_x, d_mean, cols);
    row_rstd<<<rows, THREADS>>>(d_x, d_mean, d_rstd, eps, cols);
    apply_norm<<<rows, THREADS>>>(d_x, d_mean, d_rstd, d_gamma, d_beta, d_y, cols);
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);
    double total = 0.0, sq = 0.0;
    for (int k = 0; k < rows * cols; k++) {
        total += h_y[k];
        sq += (double)h_y[k] * h_y[k];
    }
    printf("layernorm rows=%d cols=%d\n", rows, cols);
    printf("sum %.4f sumsq %.4f\n", total, sq);
    cudaFree(d_x);
    cudaFree(d_mean);
    cudaFree(d_rstd);
    cudaFree(d_gamma);
    cudaFree(d_beta);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    free(h_gamma);
    free(h_beta);
    return 0;
}
