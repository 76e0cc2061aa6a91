// Issue 19, transfers: one device buffer paired with two host buffers. The state 'd_u' comes
// up from 'u0', is read back into 'snap' after the first half of the steps and into 'u_end'
// after the second; the coefficients go up next to it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void step(float *u, const float *k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        u[i] = u[i] + k[i] * (1.0f - u[i]);
}

int main()
{
    int n = 4096;
    size_t bytes = n * sizeof(float);
    float *u0 = (float *)malloc(bytes);
    float *k = (float *)malloc(bytes);
    float *snap = (float *)malloc(bytes);
    float *u_end = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        u0[i] = (float)(i % 9) * 0.1f;
        k[i] = 0.05f + (float)(i % 5) * 0.01f;
    }
    float *d_u, *d_k;
    cudaMalloc((void **)&d_u, bytes);
    cudaMalloc((void **)&d_k, bytes);
    cudaMemcpy(d_u, u0, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_k, k, bytes, cudaMemcpyHostToDevice);
    step<<<(n + 127) / 128, 128>>>(d_u, d_k, n);
    step<<<(n + 127) / 128, 128>>>(d_u, d_k, n);
    cudaMemcpy(snap, d_u, bytes, cudaMemcpyDeviceToHost);
    step<<<(n + 127) / 128, 128>>>(d_u, d_k, n);
    cudaMemcpy(u_end, d_u, bytes, cudaMemcpyDeviceToHost);
    double a = 0, b = 0;
    for (int i = 0; i < n; i++) {
        a += snap[i];
        b += u_end[i] - u0[i];
    }
    printf("half %.5f change %.5f\n", a, b);
    cudaFree(d_u);
    cudaFree(d_k);
    free(u0);
    free(k);
    free(snap);
    free(u_end);
    return 0;
}
