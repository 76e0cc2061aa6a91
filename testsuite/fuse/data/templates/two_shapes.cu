// Two instantiations of one template with different block sizes (a template parameter used
// in the index) on independent buffers: fused horizontally, each dispatched by block range.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T, int BLOCK>
__global__ void blend(const T *a, T *b, T wa, T wb, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        b[i] = wa * a[i] + wb * b[i];
}

int main()
{
    const int n = 3333, m = 2100;
    static float hf[3333];
    static double hd[2100];
    for (int i = 0; i < n; ++i)
        hf[i] = (i % 9) * 0.5f;
    for (int i = 0; i < m; ++i)
        hd[i] = (i % 5) * 0.25;
    float *af, *bf;
    double *ad, *bd;
    cudaMalloc(&af, n * sizeof(float));
    cudaMalloc(&bf, n * sizeof(float));
    cudaMalloc(&ad, m * sizeof(double));
    cudaMalloc(&bd, m * sizeof(double));
    cudaMemcpy(af, hf, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(bf, hf, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(ad, hd, m * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(bd, hd, m * sizeof(double), cudaMemcpyHostToDevice);
    blend<float, 64><<<(n + 63) / 64, 64>>>(af, bf, 0.75f, 0.25f, n);
    blend<double, 256><<<(m + 255) / 256, 256>>>(ad, bd, 1.5, -0.5, m);
    cudaMemcpy(hf, bf, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, bd, m * sizeof(double), cudaMemcpyDeviceToHost);
    double sf = 0, sd = 0;
    for (int i = 0; i < n; ++i)
        sf += hf[i] * (i % 4);
    for (int i = 0; i < m; ++i)
        sd += hd[i] * (i % 3);
    printf("%.3f %.4f\n", sf, sd);
    cudaFree(af);
    cudaFree(bf);
    cudaFree(ad);
    cudaFree(bd);
    return 0;
}
