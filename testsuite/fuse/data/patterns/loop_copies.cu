// Issue 19, item 2: a host loop whose body uploads two inputs, launches, and downloads two
// results each step; a counter zeroed once with cudaMemset before the loop.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void combine(const float *a, const float *b, float *sum, float *diff, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        sum[i] = a[i] + b[i];
        diff[i] = a[i] - b[i];
    }
}

__global__ void count_positive(const float *x, int *hits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f)
        atomicAdd(hits, 1);
}

int main(int argc, char **argv)
{
    int n = 3000, steps = argc > 1 ? atoi(argv[1]) : 4;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    float *h_sum = (float *)malloc(bytes);
    float *h_diff = (float *)malloc(bytes);
    int *h_hits = (int *)malloc(sizeof(int));
    float *d_a, *d_b, *d_sum, *d_diff;
    int *d_hits;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_sum, bytes);
    cudaMalloc((void **)&d_diff, bytes);
    cudaMalloc((void **)&d_hits, sizeof(int));
    cudaMemset(d_hits, 0, sizeof(int));
    double total = 0.0;
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < n; ++i) {
            h_a[i] = (i % 13) * 0.5f - t;
            h_b[i] = (i % 7) * 1.5f;
        }
        cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
        combine<<<(n + 255) / 256, 256>>>(d_a, d_b, d_sum, d_diff, n);
        count_positive<<<(n + 255) / 256, 256>>>(d_diff, d_hits, n);
        cudaMemcpy(h_sum, d_sum, bytes, cudaMemcpyDeviceToHost);
        cudaMemcpy(h_diff, d_diff, bytes, cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; i += 97)
            total += h_sum[i] + 0.5 * h_diff[i];
    }
    cudaMemcpy(h_hits, d_hits, sizeof(int), cudaMemcpyDeviceToHost);
    printf("total %.3f hits %d\n", total, *h_hits);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_sum);
    cudaFree(d_diff);
    cudaFree(d_hits);
    free(h_a);
    free(h_b);
    free(h_sum);
    free(h_diff);
    free(h_hits);
    return 0;
}
