// Launches template kernels defined in a project header, and an ordinary kernel of its own.
#include <cstdio>
#include "stencil_kernels.cuh"

__global__ void square(double *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * x[i];
}

int main()
{
    const int n = 5000;
    static double h[5000];
    for (int i = 0; i < n; ++i)
        h[i] = (i % 11) * 0.5 - 2.0;
    double *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(double));
    cudaMalloc(&d_out, n * sizeof(double));
    cudaMemcpy(d_in, h, n * sizeof(double), cudaMemcpyHostToDevice);
    smooth3<double><<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    clamp_to<double><<<(n + 255) / 256, 256>>>(d_out, -1.0, 1.5, n);
    square<<<(n + 255) / 256, 256>>>(d_out, n);
    cudaMemcpy(h, d_out, n * sizeof(double), cudaMemcpyDeviceToHost);
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += h[i] * (i % 5);
    printf("sum %.4f\n", s);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
