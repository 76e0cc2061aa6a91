// Issue 19, item 2: a time loop that launches a kernel and rotates its two device buffers;
// a second host buffer goes up and comes back around the loop.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void blur(const float *in, float *out, const float *weight, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = weight[i] * (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
    else if (i < n)
        out[i] = in[i];
}

__global__ void rescale(float *w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] = 0.5f * w[i] + 0.5f;
}

int main()
{
    int n = 4000, steps = 6;
    size_t bytes = n * sizeof(float);
    float *h_u = (float *)malloc(bytes);
    float *h_w = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        h_u[i] = (float)(i % 11);
        h_w[i] = 1.0f - 0.0001f * i;
    }
    float *d_u, *d_v, *d_w;
    cudaMalloc((void **)&d_u, bytes);
    cudaMalloc((void **)&d_v, bytes);
    cudaMalloc((void **)&d_w, bytes);
    cudaMemcpy(d_w, h_w, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);
    rescale<<<(n + 255) / 256, 256>>>(d_w, n);
    for (int t = 0; t < steps; t++) {
        blur<<<(n + 255) / 256, 256>>>(d_u, d_v, d_w, n);
        float *swap = d_u;
        d_u = d_v;
        d_v = swap;
    }
    cudaMemcpy(h_w, d_w, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f %f\n", h_u[1], h_u[n / 2], h_w[n - 1]);
    cudaFree(d_u);
    cudaFree(d_v);
    cudaFree(d_w);
    free(h_u);
    free(h_w);
    return 0;
}
