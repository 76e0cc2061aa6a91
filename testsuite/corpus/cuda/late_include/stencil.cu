// stencil.cu: main comes first, the kernels after it, and a local header is included last.
#include <stdio.h>
#include <stdlib.h>

#define N 5000
#define STEPS 5

__global__ void smooth(const float *in, float *out, int n);
__global__ void clamp(float *v, int n, float lo, float hi);
static void report(const char *what, const float *v, int n);

int main()
{
    float *h = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        h[i] = (i % 17) * 0.75f - 4.0f;
    float *a, *b;
    cudaMalloc((void **)&a, N * sizeof(float));
    cudaMalloc((void **)&b, N * sizeof(float));
    cudaMemcpy(a, h, N * sizeof(float), cudaMemcpyHostToDevice);
    for (int s = 0; s < STEPS; s++) {
        smooth<<<(N + 127) / 128, 128>>>(a, b, N);
        clamp<<<(N + 127) / 128, 128>>>(b, N, -2.5f, 2.5f);
        float *t = a;
        a = b;
        b = t;
    }
    cudaMemcpy(h, a, N * sizeof(float), cudaMemcpyDeviceToHost);
    report("smoothed", h, N);
    cudaFree(a);
    cudaFree(b);
    free(h);
    return 0;
}

__global__ void smooth(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
    else if (i == 0 || i == n - 1)
        out[i] = in[i];
}

__global__ void clamp(float *v, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = fminf(hi, fmaxf(lo, v[i]));
}

#include "report.h"
