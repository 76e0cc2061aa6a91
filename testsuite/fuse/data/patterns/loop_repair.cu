// Loops that copy with pairing per value (xfer3a + xfer3b): 'h_a' goes up to 'd_acc' once
// before the loop and comes back from it after, while inside the loop it goes up to 'd_a' each
// step, next to 'h_b' -> 'd_b'. The pool slot of 'h_a' goes to the pairing the loop's body
// copies, so the body's two uploads are one cudaMemcpy; the copies with 'd_acc' stay alone.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void halve(float *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] = 0.5f * acc[i];
}

__global__ void accumulate(const float *a, const float *b, float *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] += a[i] * b[i];
}

int main(int argc, char **argv)
{
    int n = 2000, steps = argc > 1 ? atoi(argv[1]) : 3;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    float *d_a, *d_b, *d_acc;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_acc, bytes);
    for (int i = 0; i < n; ++i)
        h_a[i] = (i % 11) * 0.25f;
    cudaMemcpy(d_acc, h_a, bytes, cudaMemcpyHostToDevice);
    halve<<<(n + 255) / 256, 256>>>(d_acc, n);
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < n; ++i) {
            h_a[i] = (i % 7) * 0.5f + t;
            h_b[i] = (i % 5) - 1.0f;
        }
        cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
        accumulate<<<(n + 255) / 256, 256>>>(d_a, d_b, d_acc, n);
    }
    cudaMemcpy(h_a, d_acc, bytes, cudaMemcpyDeviceToHost);
    double total = 0.0;
    for (int i = 0; i < n; i += 13)
        total += h_a[i];
    printf("total %.3f\n", total);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_acc);
    free(h_a);
    free(h_b);
    return 0;
}
