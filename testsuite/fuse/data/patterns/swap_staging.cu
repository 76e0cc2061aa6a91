// Issue 19, transfers: at one point 'h' goes up into 'd_a' and then takes the result of 'd_b'.
// Pairing per value allows it; the upload must stay before the download that overwrites 'h'
// (downloads otherwise come first at a point).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void make(float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 100.0f + i;
}

__global__ void use(const float *a, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * 2.0f;
}

int main()
{
    int n = 512;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    float *g = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) h[i] = (float)i;
    float *d_a, *d_b, *d_c;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_c, bytes);
    make<<<(n + 255) / 256, 256>>>(d_b, n);
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(h, d_b, bytes, cudaMemcpyDeviceToHost);
    float first = h[1];
    use<<<(n + 255) / 256, 256>>>(d_a, d_c, n);
    cudaMemcpy(g, d_c, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f %f %f\n", first, h[3], g[3], g[n - 1]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h);
    free(g);
    return 0;
}
