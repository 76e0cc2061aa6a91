// Issue 19, corpus pattern (vecadd_hostfirst): host buffers allocated by several declarators
// of one declaration, and frees that share a line.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void axpy(const float *x, const float *y, float *z, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}

int main()
{
    const int n = 3000;
    size_t bytes = n * sizeof(float);
    float *x = (float *)malloc(bytes), *y = (float *)malloc(bytes), *z = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 9);
        y[i] = 1.0f - (float)(i % 4);
    }
    float *d_x, *d_y, *d_z;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);
    cudaMalloc((void **)&d_z, bytes);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice);
    axpy<<<(n + 127) / 128, 128>>>(d_x, d_y, d_z, 0.5f, n);
    cudaMemcpy(z, d_z, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f\n", z[1], z[n - 1]);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_z);
    free(x); free(y); free(z);
    return 0;
}
