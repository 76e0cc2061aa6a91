/*
 * sgemvt.cu -- SGEMVT: x = beta A^T y + z; w = alpha A x, one kernel per BLAS call.
 *     t = beta A^T y        (gemv_cols)
 *     x = t + z             (axpby_kernel)
 *     w = alpha A x         (gemv_rows: needs all of x, a global barrier)
 * Usage: sgemvt [m n]     (default 1200 1000)
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
    float *h_y = (float *)malloc((size_t)m * sizeof(float));
    float *h_z = (float *)malloc((size_t)n * sizeof(float));
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    float *h_w = (float *)malloc((size_t)m * sizeof(float));
    for (int k = 0; k < m * n; k++)
        h_A[k] = 0.125f * (float)((7 * (k / n) + 3 * (k % n)) % 9 - 4);
    for (int k = 0; k < m; k++)
        h_y[k] = 0.25f * (float)(k % 5 - 2);
    for (int k = 0; k < n; k++)
        h_z[k] = 0.5f * (float)(k % 3 - 1);
    float *d_A, *d_y, *d_z, *d_x, *d_w, *d_t;
    cudaMalloc(&d_A, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_y, (size_t)m * sizeof(float));
    cudaMalloc(&d_z, (size_t)n * sizeof(float));
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMalloc(&d_w, (size_t)m * sizeof(float));
    cudaMalloc(&d_t, (size_t)n * sizeof(float));
    cudaMemcpy(d_A, h_A, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, (size_t)m * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_z, h_z, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    int grid_m = (m + THREADS - 1) / THREADS;
    int grid_n = (n + THREADS - 1) / THREADS;
    gemv_cols<<<grid_n, THREADS>>>(d_A, d_y, d_t, beta, m, n);
    axpby_kernel<<<grid_n, THREADS>>>(d_t, d_z, d_x, 1.0f, 1.0f, n);
    gemv_rows<<<grid_m, THREADS>>>(d_A, d_x, d_w, alpha, m, n);
    cudaMemcpy(h_x, d_x, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_w, d_w, (size_t)m * sizeof(float), cudaMemcpyDeviceToHost);
    printf("sgemvt m=%d n=%d\n", m, n);
    printf("x checksum %.10g\n", checksum(h_x, n));
    printf("w checksum %.10g\n", checksum(h_w, m));
    cudaFree(d_A);
    cudaFree(d_y);
    cudaFree(d_z);
    cudaFree(d_x);
    cudaFree(d_w);
    cudaFree(d_t);
    free(h_A);
    free(h_y);
    free(h_z);
    free(h_x);
    free(h_w);
    return 0;
}
