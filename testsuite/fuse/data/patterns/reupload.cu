// Issue 19, transfers: one host buffer goes up twice, into two device buffers, the second time
// after the host changed it. Its first upload moves alone; its second can share a copy with
// 'x' (filled at the same time), so that pairing gets the host buffer's pool slot.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void first(const float *a, float *r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        r[i] = a[i] + 1.0f;
}

__global__ void second(const float *a, const float *b, const float *r, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        o[i] = a[i] * b[i] + r[i];
}

int main()
{
    int n = 1000;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    float *x = (float *)malloc(bytes);
    float *y = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h[i] = i * 0.5f;
    float *d_one, *d_r, *d_two, *d_x, *d_o;
    cudaMalloc((void **)&d_one, bytes);
    cudaMalloc((void **)&d_r, bytes);
    cudaMalloc((void **)&d_two, bytes);
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_o, bytes);
    cudaMemcpy(d_one, h, bytes, cudaMemcpyHostToDevice);
    first<<<(n + 255) / 256, 256>>>(d_one, d_r, n);
    for (int i = 0; i < n; i++) {
        h[i] = h[i] - 1.0f;
        x[i] = 1.0f + (i % 3);
    }
    cudaMemcpy(d_two, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    second<<<(n + 255) / 256, 256>>>(d_two, d_x, d_r, d_o, n);
    cudaMemcpy(y, d_o, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f\n", y[0], y[n - 1]);
    cudaFree(d_one);
    cudaFree(d_r);
    cudaFree(d_two);
    cudaFree(d_x);
    cudaFree(d_o);
    free(h);
    free(x);
    free(y);
    return 0;
}
