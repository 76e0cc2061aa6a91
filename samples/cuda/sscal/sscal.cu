/*
 * sscal.cu -- SSCAL: x = alpha x (one kernel).
 * Usage: sscal [m n]      (n is the vector length; default 1200 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void sscal_kernel(float *x, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= alpha;
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
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    for (int k = 0; k < n; k++)
        h_x[k] = 0.25f * (float)(k % 9 - 4);
    float *d_x;
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    int grid_n = (n + THREADS - 1) / THREADS;
    sscal_kernel<<<grid_n, THREADS>>>(d_x, alpha, n);
    cudaMemcpy(h_x, d_x, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("sscal m=%d n=%d\n", m, n);
    printf("x checksum %.10g\n", checksum(h_x, n));
    cudaFree(d_x);
    free(h_x);
    return 0;
}
