// Issue 19: an array of device pointers (a double buffer): its elements allocated, filled and
// freed by constant index, alternated by a variable index in a loop of launches, and the
// result read back from the element the index names at the end.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void smooth(const float *in, const float *coef, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float left = i > 0 ? in[i - 1] : in[i];
        float right = i < n - 1 ? in[i + 1] : in[i];
        out[i] = coef[i] * in[i] + 0.5f * (1.0f - coef[i]) * (left + right);
    }
}

__global__ void scale(float *x, float f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= f;
}

int main(int argc, char **argv)
{
    int n = 4096, steps = argc > 1 ? atoi(argv[1]) : 5;
    size_t bytes = n * sizeof(float);
    float *h_init = (float *)malloc(bytes);
    float *h_coef = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) {
        h_init[i] = (float)((i * 37) % 101);
        h_coef[i] = 0.25f + 0.5f * (i % 3) / 2.0f;
    }
    float *d_buf[2], *d_coef;
    cudaMalloc((void **)&d_buf[0], bytes);
    cudaMalloc((void **)&d_buf[1], bytes);
    cudaMalloc((void **)&d_coef, bytes);
    cudaMemcpy(d_buf[0], h_init, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_coef, h_coef, bytes, cudaMemcpyHostToDevice);
    int cur = 0;
    for (int t = 0; t < steps; ++t) {
        smooth<<<(n + 255) / 256, 256>>>(d_buf[cur], d_coef, d_buf[1 - cur], n);
        cur = 1 - cur;
    }
    scale<<<(n + 255) / 256, 256>>>(d_buf[cur], 0.5f, n);
    cudaMemcpy(h_out, d_buf[cur], bytes, cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += h_out[i];
    printf("steps %d sum %.4f out[10] %.4f\n", steps, sum, h_out[10]);
    cudaFree(d_buf[0]);
    cudaFree(d_buf[1]);
    cudaFree(d_coef);
    free(h_init);
    free(h_coef);
    free(h_out);
    return 0;
}
