/*
 * saxpy.cu -- single-precision y = a*x + y on the GPU.
 *
 * The textbook CUDA program: allocate on the host, allocate on the device,
 * copy the inputs over, launch a 1-D grid with one thread per element,
 * copy the result back and free everything.  The default length is
 * deliberately not a multiple of the block size, so the last block is only
 * partly populated and the `if (i < n)` guard matters.
 *
 * Inputs are multiples of 1/8 and 1/2, a = 2.5, so every result is exactly
 * representable in float and the printed checksum does not depend on
 * whether the compiler contracts a*x+y into an FMA.
 *
 * Usage: saxpy [n]            (default n = 1048579 = 2^20 + 3)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    int n = (1 << 20) + 3;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n>0]\n", argv[0]);
        return 1;
    }

    const float a = 2.5f;
    size_t bytes = (size_t)n * sizeof(float);

    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    if (!h_x || !h_y) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.125f * (float)(i % 16);     /* 0 .. 1.875 */
        h_y[i] = 0.5f * (float)(i % 7 - 3);    /* -1.5 .. 1.5 */
    }

    float *d_x, *d_y;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);

    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice);

    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    saxpy<<<blocks, BLOCK_SIZE>>>(n, a, d_x, d_y);

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);

    double checksum = 0.0;
    for (int i = 0; i < n; ++i)
        checksum += h_y[i];

    printf("saxpy n=%d a=%g blocks=%d\n", n, a, blocks);
    printf("checksum %.10g\n", checksum);
    int probe[5] = {0, 1, 17, n / 2, n - 1};
    for (int k = 0; k < 5; ++k)
        printf("y[%d] = %.6g\n", probe[k], h_y[probe[k]]);

    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
