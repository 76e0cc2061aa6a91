// Issue 19, item 1: a launch shape's member block.x next to a host array x, device pointers
// declared = NULL several to a declaration, host arrays declared two to a declaration.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}

int main()
{
    int n = 100000;
    size_t bytes = n * sizeof(float);
    float *x = (float *)malloc(bytes);
    float *y = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
    dim3 block(128), grid;
    block.x = 256;
    grid.x = (n + block.x - 1) / block.x;
    float *d_x = NULL, *d_y = NULL;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice);
    axpy<<<grid, block>>>(d_y, d_x, 3.0f, n);
    cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost);
    printf("y[0] = %f\n", y[0]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(x);
    free(y);
    return 0;
}
