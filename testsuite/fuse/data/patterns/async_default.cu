// Issue 19: cudaMemcpyAsync on the default stream (no stream argument, or 0) around a launch;
// the program synchronizes before it reads the results.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + b * y[i];
}

int main()
{
    const int n = 5000;
    size_t bytes = n * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.25f * (i % 17);
        h_y[i] = 1.0f - 0.125f * (i % 5);
    }
    float *d_x, *d_y, *d_out;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpyAsync(d_y, h_y, bytes, cudaMemcpyHostToDevice, 0);
    axpby<<<(n + 255) / 256, 256>>>(d_x, d_y, d_out, 2.0f, -3.0f, n);
    cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, 0);
    cudaDeviceSynchronize();
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += h_out[i];
    printf("sum %.3f out[7] %.3f\n", sum, h_out[7]);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_out);
    free(h_x);
    free(h_y);
    free(h_out);
    return 0;
}
