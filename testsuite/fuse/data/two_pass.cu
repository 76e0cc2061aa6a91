/* two_pass.cu -- a map, a per-block partial sum and a one-block second pass (fuse tests). */
#include <cuda_runtime.h>
#include <cstdlib>
#define THREADS 256
__global__ void scale(const float *x, float *y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}
__global__ void partial_sum(const float *in, float *partial, int n)
{
    __shared__ float s[THREADS];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}
__global__ void final_sum(const float *partial, float *out, int count)
{
    __shared__ float s[THREADS];
    unsigned int tid = threadIdx.x;
    float acc = 0.0f;
    for (int j = tid; j < count; j += blockDim.x)
        acc += partial[j];
    s[tid] = acc;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0] / gridDim.x;
}
int main()
{
    int n = 5000;
    int blocks = (n + THREADS - 1) / THREADS;
    float *h_x = (float *)malloc(n * sizeof(float));
    float h_total[2];
    float *d_x, *d_y, *d_partial, *d_total;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMalloc(&d_total, 2 * sizeof(float));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_total, 0, 2 * sizeof(float));
    scale<<<blocks, THREADS>>>(d_x, d_y, 0.5f, n);
    partial_sum<<<blocks, THREADS>>>(d_y, d_partial, n);
    final_sum<<<1, THREADS>>>(d_partial, d_total, blocks);
    cudaMemcpy(h_total, d_total, 2 * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_partial);
    cudaFree(d_total);
    return 0;
}
