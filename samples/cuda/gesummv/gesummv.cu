/*
 * gesummv.cu -- GESUMMV: y = alpha A x + beta B x, one kernel per BLAS call.
 *     t1 = A x, t2 = B x    (gemv_rows twice: independent, same launch shape)
 *     y = alpha t1 + beta t2 (axpby_kernel)
 * Usage: gesummv [m n]    (default 1200 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

/* t[i] = alpha * sum_j A[i][j] x[j]: one thread per row */
__global__ void gemv_rows(const float *A, const float *x, float *t, float alpha, int m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        float acc = 0.0f;
        for (int j = 0; j < n; j++)
            acc += A[i * n + j] * x[j];
        t[i] = alpha * acc;
    }
}

/* out = a x + b y */
__global__ void axpby_kernel(const float *x, const float *y, float *out, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + b * y[i];
}

static double checksum(const float *v, int n)
{
    double sum = 0.0;
    for (int k = 0; k < n; k++)
        sum += (double)v[k] * (double)((k % 3) + 1);
    return sum;
}

int main(int argc, char **argv)
{
    int m = 1200, n = 1000;
    if (argc > 2) {
        m = atoi(argv[1]);
        n = atoi(argv[2]);
    }
    const float alpha = 0.5f;
    const float beta = 1.5f;
    float *h_A = (float *)malloc((size_t)m * n * sizeof(float));
    float *h_B = (float *)malloc((size_t)m * n * sizeof(float));
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    float *h_y = (float *)malloc((size_t)m * sizeof(float));
    for (int k = 0; k < m * n; k++)
        h_A[k] = 0.125f * (float)((7 * (k / n) + 3 * (k % n)) % 9 - 4);
    for (int k = 0; k < m * n; k++)
        h_B[k] = 0.25f * (float)((5 * (k / n) + (k % n)) % 7 - 3);
    for (int k = 0; k < n; k++)
        h_x[k] = 0.25f * (float)(k % 5 - 2);
    float *d_A, *d_B, *d_x, *d_y, *d_t1, *d_t2;
    cudaMalloc(&d_A, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_B, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMalloc(&d_y, (size_t)m * sizeof(float));
    cudaMalloc(&d_t1, (size_t)m * sizeof(float));
    cudaMalloc(&d_t2, (size_t)m * sizeof(float));
    cudaMemcpy(d_A, h_A, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    int grid_m = (m + THREADS - 1) / THREADS;
    gemv_rows<<<grid_m, THREADS>>>(d_A, d_x, d_t1, 1.0f, m, n);
    gemv_rows<<<grid_m, THREADS>>>(d_B, d_x, d_t2, 1.0f, m, n);
    axpby_kernel<<<grid_m, THREADS>>>(d_t1, d_t2, d_y, alpha, beta, m);
    cudaMemcpy(h_y, d_y, (size_t)m * sizeof(float), cudaMemcpyDeviceToHost);
    printf("gesummv m=%d n=%d\n", m, n);
    printf("y checksum %.10g\n", checksum(h_y, m));
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_t1);
    cudaFree(d_t2);
    free(h_A);
    free(h_B);
    free(h_x);
    free(h_y);
    return 0;
}
