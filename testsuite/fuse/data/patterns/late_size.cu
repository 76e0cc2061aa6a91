// Issue 19, transfers (corpus: template_reduce): the size of a later buffer is declared after
// the first allocation. The declaration moves up to where the pools are made, so every
// buffer joins them and the downloads after the kernel share one copy.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void group_sums(const float *x, float *sums, float *scaled, int n)
{
    __shared__ float part[64];
    int i = blockIdx.x * 64 + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int k = 0; k < 64; k++)
            s += part[k];
        sums[blockIdx.x] = s;
    }
    if (i < n)
        scaled[i] = 2.0f * x[i];
}

int main()
{
    int n = 5000;
    float *h_x = (float *)malloc(n * sizeof(float));
    float *h_scaled = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        h_x[i] = (float)(i % 13) * 0.25f;
    float *d_x, *d_scaled;
    cudaMalloc((void **)&d_x, n * sizeof(float));
    cudaMalloc((void **)&d_scaled, n * sizeof(float));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    const int groups = (n + 63) / 64;
    float *h_sums = (float *)malloc(groups * sizeof(float));
    float *d_sums;
    cudaMalloc((void **)&d_sums, groups * sizeof(float));
    group_sums<<<groups, 64>>>(d_x, d_sums, d_scaled, n);
    cudaMemcpy(h_sums, d_sums, groups * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_scaled, d_scaled, n * sizeof(float), cudaMemcpyDeviceToHost);
    double total = 0, twice = 0;
    for (int g = 0; g < groups; g++)
        total += h_sums[g];
    for (int i = 0; i < n; i++)
        twice += h_scaled[i];
    printf("groups %d total %.2f twice %.2f\n", groups, total, twice);
    cudaFree(d_x);
    cudaFree(d_scaled);
    cudaFree(d_sums);
    free(h_x);
    free(h_scaled);
    free(h_sums);
    return 0;
}
