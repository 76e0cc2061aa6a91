/*
 * waxpby.cu -- WAXPBY: w = alpha x + beta y, one kernel per BLAS call.
 *     w = alpha x           (scal_copy)
 *     w = w + beta y        (axpy_inplace)
 * Usage: waxpby [m n]     (n is the vector length; default 1200 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void scal_copy(const float *x, float *w, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] = alpha * x[i];
}

__global__ void axpy_inplace(const float *y, float *w, float beta, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] += beta * y[i];
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
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    float *h_y = (float *)malloc((size_t)n * sizeof(float));
    float *h_w = (float *)malloc((size_t)n * sizeof(float));
    for (int k = 0; k < n; k++)
        h_x[k] = 0.25f * (float)(k % 9 - 4);
    for (int k = 0; k < n; k++)
        h_y[k] = 0.5f * (float)(k % 5 - 2);
    float *d_x, *d_y, *d_w;
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMalloc(&d_y, (size_t)n * sizeof(float));
    cudaMalloc(&d_w, (size_t)n * sizeof(float));
    cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    int grid_n = (n + THREADS - 1) / THREADS;
    scal_copy<<<grid_n, THREADS>>>(d_x, d_w, alpha, n);
    axpy_inplace<<<grid_n, THREADS>>>(d_y, d_w, beta, n);
    cudaMemcpy(h_w, d_w, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("waxpby m=%d n=%d\n", m, n);
    printf("w checksum %.10g\n", checksum(h_w, n));
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_w);
    free(h_x);
    free(h_y);
    free(h_w);
    return 0;
}
