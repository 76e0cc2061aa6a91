/*
 * vadd.cu -- VADD: x = w + y + z, one kernel per BLAS call.
 *     t = w + y, x = t + z  (vadd_kernel twice)
 * Usage: vadd [m n]       (n is the vector length; default 1200 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

/* out = x + y */
__global__ void vadd_kernel(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
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
    float *h_w = (float *)malloc((size_t)n * sizeof(float));
    float *h_y = (float *)malloc((size_t)n * sizeof(float));
    float *h_z = (float *)malloc((size_t)n * sizeof(float));
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    for (int k = 0; k < n; k++)
        h_w[k] = 0.25f * (float)(k % 9 - 4);
    for (int k = 0; k < n; k++)
        h_y[k] = 0.5f * (float)(k % 5 - 2);
    for (int k = 0; k < n; k++)
        h_z[k] = 0.125f * (float)(k % 7 - 3);
    float *d_w, *d_y, *d_z, *d_x, *d_t;
    cudaMalloc(&d_w, (size_t)n * sizeof(float));
    cudaMalloc(&d_y, (size_t)n * sizeof(float));
    cudaMalloc(&d_z, (size_t)n * sizeof(float));
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMalloc(&d_t, (size_t)n * sizeof(float));
    cudaMemcpy(d_w, h_w, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_z, h_z, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    int grid_n = (n + THREADS - 1) / THREADS;
    vadd_kernel<<<grid_n, THREADS>>>(d_w, d_y, d_t, n);
    vadd_kernel<<<grid_n, THREADS>>>(d_t, d_z, d_x, n);
    cudaMemcpy(h_x, d_x, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("vadd m=%d n=%d\n", m, n);
    printf("x checksum %.10g\n", checksum(h_x, n));
    cudaFree(d_w);
    cudaFree(d_y);
    cudaFree(d_z);
    cudaFree(d_x);
    cudaFree(d_t);
    free(h_w);
    free(h_y);
    free(h_z);
    free(h_x);
    return 0;
}
