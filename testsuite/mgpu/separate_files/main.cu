/* main.cu: launches the kernels of kernels.cu (separate compilation) */
#include <cstdio>
#include <cuda_runtime.h>
#include "ops.h"

int main()
{
    const int n = 4096;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    fill_ramp<<<(n + 255) / 256, 256>>>(x, 0.5f, n);
    fill_ramp<<<(n + 255) / 256, 256>>>(y, 1.0f, n);
    add_into<<<(n + 255) / 256, 256>>>(y, x, n);
    float h[n];
    cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += h[i];
    printf("y[1] = %g, y[4095] = %g, sum = %.1f\n", h[1], h[4095], sum);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
