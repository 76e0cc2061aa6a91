/*
 * bicgk_tiled.cu -- BiCGK (q = A p, s = A^T r) with tiled BLAS-2 kernels.
 *
 * Both kernels run on the same 2-D grid of 32 x 8 tiles of A: thread (i, j)
 * loads A[i][j] once, the block reduces its tile along rows (gemv_tile) or
 * columns (gemvt_tile) in shared memory and adds the partial sums to q / s
 * with atomicAdd.  The two kernels read A with the same thread-to-data
 * mapping, so a fused kernel loads each element of A once (paper 001, BiCGK).
 * Inputs are dyadic: every sum is exact in float.
 *
 * Usage: bicgk_tiled [m n]     (default 1200 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TX 32
#define TY 8

/* q[i] += sum over the tile's columns of A[i][j] p[j] */
__global__ void gemv_tile(const float *A, const float *p, float *q, int m, int n)
{
    __shared__ float part[TX * TY];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * TX + threadIdx.x;
    part[t] = (i < m && j < n) ? A[i * n + j] * p[j] : 0.0f;
    __syncthreads();
    for (int s = TX / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && i < m)
        atomicAdd(&q[i], part[t]);
}

/* s[j] += sum over the tile's rows of A[i][j] r[i] */
__global__ void gemvt_tile(const float *A, const float *r, float *s, int m, int n)
{
    __shared__ float part[TX * TY];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * TX + threadIdx.x;
    part[t] = (i < m && j < n) ? A[i * n + j] * r[i] : 0.0f;
    __syncthreads();
    for (int h = TY / 2; h > 0; h >>= 1) {
        if (threadIdx.y < h)
            part[t] += part[t + h * TX];
        __syncthreads();
    }
    if (threadIdx.y == 0 && j < n)
        atomicAdd(&s[j], part[t]);
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
    float *h_p = (float *)malloc((size_t)n * sizeof(float));
    float *h_r = (float *)malloc((size_t)m * sizeof(float));
    float *h_q = (float *)malloc((size_t)m * sizeof(float));
    float *h_s = (float *)malloc((size_t)n * sizeof(float));
    for (int k = 0; k < m * n; k++)
        h_A[k] = 0.125f * (float)((7 * (k / n) + 3 * (k % n)) % 9 - 4);
    for (int k = 0; k < n; k++)
        h_p[k] = 0.25f * (float)(k % 5 - 2);
    for (int k = 0; k < m; k++)
        h_r[k] = 0.5f * (float)(k % 3 - 1);
    float *d_A, *d_p, *d_r, *d_q, *d_s;
    cudaMalloc(&d_A, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_p, (size_t)n * sizeof(float));
    cudaMalloc(&d_r, (size_t)m * sizeof(float));
    cudaMalloc(&d_q, (size_t)m * sizeof(float));
    cudaMalloc(&d_s, (size_t)n * sizeof(float));
    cudaMemcpy(d_A, h_A, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_p, h_p, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_r, h_r, (size_t)m * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_q, 0, (size_t)m * sizeof(float));
    cudaMemset(d_s, 0, (size_t)n * sizeof(float));
    dim3 block(TX, TY);
    dim3 grid((n + TX - 1) / TX, (m + TY - 1) / TY);
    gemv_tile<<<grid, block>>>(d_A, d_p, d_q, m, n);
    gemvt_tile<<<grid, block>>>(d_A, d_r, d_s, m, n);
    cudaMemcpy(h_q, d_q, (size_t)m * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_s, d_s, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("bicgk_tiled m=%d n=%d\n", m, n);
    printf("q checksum %.10g\n", checksum(h_q, m));
    printf("s checksum %.10g\n", checksum(h_s, n));
    cudaFree(d_A);
    cudaFree(d_p);
    cudaFree(d_r);
    cudaFree(d_q);
    cudaFree(d_s);
    free(h_A);
    free(h_p);
    free(h_r);
    free(h_q);
    free(h_s);
    return 0;
}
