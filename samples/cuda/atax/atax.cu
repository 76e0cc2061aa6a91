/*
 * atax.cu -- ATAX: y = A^T (A x), one kernel per BLAS call.
 *     tmp = A x      (gemv_rows: one thread per row)
 *     y = A^T tmp    (gemv_cols: one thread per column)
 * Every y[j] needs all of tmp: a global barrier, so the two stay separate kernels.
 * Usage: atax [m n]      (default 1200 1000)
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

/* t[j] = alpha * sum_i A[i][j] y[i]: one thread per column (coalesced) */
__global__ void gemv_cols(const float *A, const float *y, float *t, float alpha, int m, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        float acc = 0.0f;
        for (int i = 0; i < m; i++)
            acc += A[i * n + j] * y[i];
        t[j] = alpha * acc;
    }
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
    float *h_A = (float *)malloc((size_t)m * n * sizeof(float));
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    float *h_y = (float *)malloc((size_t)n * sizeof(float));
    for (int k = 0; k < m * n; k++)
        h_A[k] = 0.125f * (float)((7 * (k / n) + 3 * (k % n)) % 9 - 4);
    for (int k = 0; k < n; k++)
        h_x[k] = 0.25f * (float)(k % 5 - 2);
    float *d_A, *d_x, *d_y, *d_tmp;
    cudaMalloc(&d_A, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMalloc(&d_y, (size_t)n * sizeof(float));
    cudaMalloc(&d_tmp, (size_t)m * sizeof(float));
    cudaMemcpy(d_A, h_A, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    int grid_m = (m + THREADS - 1) / THREADS;
    int grid_n = (n + THREADS - 1) / THREADS;
    gemv_rows<<<grid_m, THREADS>>>(d_A, d_x, d_tmp, 1.0f, m, n);
    gemv_cols<<<grid_n, THREADS>>>(d_A, d_tmp, d_y, 1.0f, m, n);
    cudaMemcpy(h_y, d_y, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("atax m=%d n=%d\n", m, n);
    printf("y checksum %.10g\n", checksum(h_y, n));
    cudaFree(d_A);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_tmp);
    free(h_A);
    free(h_x);
    free(h_y);
    return 0;
}
