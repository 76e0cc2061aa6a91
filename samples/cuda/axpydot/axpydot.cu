/*
 * axpydot.cu -- AXPYDOT (BLAS sequences of Howell et al.), one kernel per BLAS call.
 *
 *     z = w - alpha v      AXPY  (axpy_kernel, map)
 *     r = z^T u            DOT   (dot_kernel, block reduction + atomicAdd)
 *
 * Inputs are dyadic, so every sum is exact in float.
 * Usage: axpydot [n]      (default 1000000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void axpy_kernel(const float *w, const float *v, float *z, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = w[i] - alpha * v[i];
}

__global__ void dot_kernel(const float *z, const float *u, float *r, int n)
{
    __shared__ float part[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[tid] = (i < n) ? z[i] * u[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            part[tid] += part[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(r, part[0]);
}

static double checksum(const float *v, int n)
{
    double sum = 0.0;
    for (int k = 0; k < n; k++)
        sum += (double)v[k] * (double)((k % 3) + 1);
    return sum;
}

int main(int argc, char **argv)
{
    int n = 1000000;
    if (argc > 1)
        n = atoi(argv[1]);
    const float alpha = 0.5f;
    size_t bytes = (size_t)n * sizeof(float);
    float *h_w = (float *)malloc(bytes);
    float *h_v = (float *)malloc(bytes);
    float *h_u = (float *)malloc(bytes);
    float *h_z = (float *)malloc(bytes);
    float h_r = 0.0f;
    for (int i = 0; i < n; i++) {
        h_w[i] = 0.25f * (float)(i % 9 - 4);
        h_v[i] = 0.5f * (float)(i % 5 - 2);
        h_u[i] = 0.125f * (float)(i % 7 - 3);
    }
    float *d_w, *d_v, *d_u, *d_z, *d_r;
    cudaMalloc(&d_w, bytes);
    cudaMalloc(&d_v, bytes);
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_z, bytes);
    cudaMalloc(&d_r, sizeof(float));
    cudaMemcpy(d_w, h_w, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_v, h_v, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_r, 0, sizeof(float));
    int grid = (n + THREADS - 1) / THREADS;
    axpy_kernel<<<grid, THREADS>>>(d_w, d_v, d_z, alpha, n);
    dot_kernel<<<grid, THREADS>>>(d_z, d_u, d_r, n);
    cudaMemcpy(h_z, d_z, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(&h_r, d_r, sizeof(float), cudaMemcpyDeviceToHost);
    printf("axpydot n=%d\n", n);
    printf("z checksum %.10g\n", checksum(h_z, n));
    printf("r = %.10g\n", h_r);
    cudaFree(d_w);
    cudaFree(d_v);
    cudaFree(d_u);
    cudaFree(d_z);
    cudaFree(d_r);
    free(h_w);
    free(h_v);
    free(h_u);
    free(h_z);
    return 0;
}
