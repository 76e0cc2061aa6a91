// Issue 19, corpus pattern (late_include): main comes first and launches kernels that are
// only declared before it and defined after it; the fused kernel needs a declaration too.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void square(const float *in, float *out, int n);
__global__ void add_one(float *v, int n);

int main()
{
    int n = 2000;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h[i] = 0.01f * i;
    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpy(d_in, h, bytes, cudaMemcpyHostToDevice);
    square<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    add_one<<<(n + 255) / 256, 256>>>(d_out, n);
    cudaMemcpy(h, d_out, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f\n", h[3], h[n - 1]);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    return 0;
}

__global__ void square(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * in[i];
}

__global__ void add_one(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] + 1.0f;
}
