// Issue 19, item 4: a frame loop that rotates its buffers at the top and runs three
// elementwise launches in its body.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void decay(const float *prev, float *cur, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        cur[i] = 0.9f * prev[i];
}

__global__ void add_source(float *cur, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        cur[i] = cur[i] + src[i];
}

__global__ void clip(float *cur, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        cur[i] = cur[i] > 1.0f ? 1.0f : cur[i];
}

int main()
{
    int n = 1 << 18, frames = 8;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i)
        h[i] = (float)(i % 5) * 0.1f;
    float *d_prev, *d_cur, *d_src;
    cudaMalloc((void **)&d_prev, bytes);
    cudaMalloc((void **)&d_cur, bytes);
    cudaMalloc((void **)&d_src, bytes);
    cudaMemcpy(d_prev, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_src, h, bytes, cudaMemcpyHostToDevice);
    for (int f = 0; f < frames; ++f) {
        float *t = d_prev;
        d_prev = d_cur;
        d_cur = t;
        decay<<<(n + 255) / 256, 256>>>(d_prev, d_cur, n);
        add_source<<<(n + 255) / 256, 256>>>(d_cur, d_src, n);
        clip<<<(n + 255) / 256, 256>>>(d_cur, n);
    }
    cudaMemcpy(h, d_cur, bytes, cudaMemcpyDeviceToHost);
    printf("%f\n", h[1]);
    cudaFree(d_prev);
    cudaFree(d_cur);
    cudaFree(d_src);
    free(h);
    return 0;
}
