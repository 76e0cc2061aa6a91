// Issue 19, item 2: copies before and after a host loop that launches a kernel each step.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void relax(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}

int main()
{
    int n = 4096, steps = 10;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) {
        h_a[i] = (float)(i % 10);
        h_b[i] = 0.0f;
    }
    float *d_a, *d_b;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    for (int t = 0; t < steps; ++t) {
        relax<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
        relax<<<(n + 255) / 256, 256>>>(d_b, d_a, n);
    }
    cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_b, d_b, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f\n", h_a[n / 2], h_b[n / 2]);
    cudaFree(d_a);
    cudaFree(d_b);
    free(h_a);
    free(h_b);
    return 0;
}
