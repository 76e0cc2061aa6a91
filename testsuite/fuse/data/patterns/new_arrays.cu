// Issue 19, transfers (corpus: poly_jacobi2d): host arrays from 'new T[n]', freed by
// 'delete[]'. They are followed (not pooled); the device buffers still share one pool.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void blend(const double *a, const double *b, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = 0.75 * a[i] + 0.25 * b[i];
}

int main()
{
    const int n = 2500;
    double *a = new double[n];
    double *b = new double[n];
    double *c = new double[n];
    for (int i = 0; i < n; ++i) {
        a[i] = i * 0.5;
        b[i] = (i % 7) - 3.0;
    }
    double *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, n * sizeof(double));
    cudaMalloc(&d_b, n * sizeof(double));
    cudaMalloc(&d_c, n * sizeof(double));
    cudaMemcpy(d_a, a, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, n * sizeof(double), cudaMemcpyHostToDevice);
    blend<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
    cudaMemcpy(c, d_c, n * sizeof(double), cudaMemcpyDeviceToHost);
    std::printf("c[1] = %.3f c[n-1] = %.3f\n", c[1], c[n - 1]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    delete[] a;
    delete[] b;
    delete[] c;
    return 0;
}
