/*
 * madd.cu -- MADD: C = A + B on a 2-D grid (one kernel).
 * Usage: madd [m n]       (default 1200 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

#define TX 32
#define TY 8

__global__ void madd_kernel(const float *A, const float *B, float *C, int m, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n)
        C[i * n + j] = A[i * n + j] + B[i * n + j];
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
    float *h_B = (float *)malloc((size_t)m * n * sizeof(float));
    float *h_C = (float *)malloc((size_t)m * n * sizeof(float));
    for (int k = 0; k < m * n; k++)
        h_A[k] = 0.125f * (float)((7 * (k / n) + 3 * (k % n)) % 9 - 4);
    for (int k = 0; k < m * n; k++)
        h_B[k] = 0.25f * (float)((5 * (k / n) + (k % n)) % 7 - 3);
    float *d_A, *d_B, *d_C;
    cudaMalloc(&d_A, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_B, (size_t)m * n * sizeof(float));
    cudaMalloc(&d_C, (size_t)m * n * sizeof(float));
    cudaMemcpy(d_A, h_A, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B, (size_t)m * n * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TX, TY);
    dim3 grid2((n + TX - 1) / TX, (m + TY - 1) / TY);
    madd_kernel<<<grid2, block>>>(d_A, d_B, d_C, m, n);
    cudaMemcpy(h_C, d_C, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("madd m=%d n=%d\n", m, n);
    printf("C checksum %.10g\n", checksum(h_C, m * n));
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
    free(h_A);
    free(h_B);
    free(h_C);
    return 0;
}
