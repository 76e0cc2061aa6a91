// Issue 19, transfers: one host buffer paired with two device buffers. The signal 'sig' goes
// up into 'd_raw' next to the weights and the bias; the filtered result comes back from
// 'd_smooth' into 'sig'; the weights also go up a second time, into 'd_w2' for the last step.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void weigh(const float *raw, const float *w, const float *bias, float *smooth, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        smooth[i] = raw[i] * w[i] + bias[i];
}

__global__ void rescale(float *smooth, const float *w2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        smooth[i] = smooth[i] / (1.0f + w2[i]);
}

int main()
{
    int n = 3000;
    size_t bytes = n * sizeof(float);
    float *sig = (float *)malloc(bytes);
    float *w = (float *)malloc(bytes);
    float *bias = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        sig[i] = (float)(i % 23) - 11.0f;
        w[i] = 0.5f + (float)(i % 4) * 0.25f;
        bias[i] = (float)(i % 3);
    }
    float *d_raw, *d_w, *d_bias, *d_smooth, *d_w2;
    cudaMalloc((void **)&d_raw, bytes);
    cudaMalloc((void **)&d_w, bytes);
    cudaMalloc((void **)&d_bias, bytes);
    cudaMalloc((void **)&d_smooth, bytes);
    cudaMalloc((void **)&d_w2, bytes);
    cudaMemcpy(d_raw, sig, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, w, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_bias, bias, bytes, cudaMemcpyHostToDevice);
    weigh<<<(n + 255) / 256, 256>>>(d_raw, d_w, d_bias, d_smooth, n);
    cudaMemcpy(d_w2, w, bytes, cudaMemcpyHostToDevice);
    rescale<<<(n + 255) / 256, 256>>>(d_smooth, d_w2, n);
    cudaMemcpy(sig, d_smooth, bytes, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += sig[i];
    printf("sum %.4f first %.4f last %.4f\n", sum, sig[0], sig[n - 1]);
    cudaFree(d_raw);
    cudaFree(d_w);
    cudaFree(d_bias);
    cudaFree(d_smooth);
    cudaFree(d_w2);
    free(sig);
    free(w);
    free(bias);
    return 0;
}
