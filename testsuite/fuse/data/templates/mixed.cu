// A template kernel next to an ordinary one: scaled differences (template, float), then
// their sum of squares by atomicAdd (an ordinary kernel).
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void scaled_diff(const T *a, const T *b, T *d, T scale, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = scale * (a[i] - b[i]);
}

__global__ void sum_squares(const float *d, float *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(total, d[i] * d[i]);
}

int main()
{
    const int n = 2048;
    static float ha[2048], hb[2048];
    for (int i = 0; i < n; ++i) {
        ha[i] = (i % 13) * 0.5f;
        hb[i] = (i % 7) * 0.25f;
    }
    float *d_a, *d_b, *d_d, *d_total;
    float total = 0.0f;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMalloc(&d_d, n * sizeof(float));
    cudaMalloc(&d_total, sizeof(float));
    cudaMemcpy(d_a, ha, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, hb, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_total, 0, sizeof(float));
    scaled_diff<float><<<(n + 127) / 128, 128>>>(d_a, d_b, d_d, 0.5f, n);
    sum_squares<<<(n + 127) / 128, 128>>>(d_d, d_total, n);
    cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum of squares %.3f\n", total);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_d);
    cudaFree(d_total);
    return 0;
}
