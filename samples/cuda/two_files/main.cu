/*
 * main.cu -- host program of the two_files sample.
 *
 * The kernels and a launcher live in kernels.cu (declared in kernels.cuh).
 * This file allocates and copies, calls the launcher for the smoothing
 * sweeps and then launches scale_add_kernel -- defined in the other
 * translation unit -- directly.  Builds without -rdc:
 *
 *     nvcc -arch=sm_90 main.cu kernels.cu -o two_files
 *
 * Values start as small integers; 8 sweeps of the (1,2,1)/4 filter keep
 * them on a 2^-16 grid, so everything stays exact in float.
 *
 * Usage: two_files [n [pairs]]     (default 100000 4)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "kernels.cuh"

int main(int argc, char **argv)
{
    int n = 100000;
    int pairs = 4;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) pairs = atoi(argv[2]);
    if (n < 1 || pairs < 0) {
        fprintf(stderr, "usage: %s [n [pairs]]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * sizeof(float);

    float *h_u = (float *)malloc(bytes);
    float *h_f = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) {
        h_u[i] = (float)((7 * i) % 16);
        h_f[i] = 0.25f * (float)(i % 3);
    }

    float *d_u, *d_tmp, *d_f;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_tmp, bytes);
    cudaMalloc(&d_f, bytes);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_f, h_f, bytes, cudaMemcpyHostToDevice);

    /* launcher in the other translation unit */
    smooth_sweeps(d_u, d_tmp, n, pairs);

    /* direct launch of a kernel defined in kernels.cu */
    int blocks = (n + SMOOTH_BLOCK - 1) / SMOOTH_BLOCK;
    scale_add_kernel<<<blocks, SMOOTH_BLOCK>>>(d_u, d_f, 0.5f, n);

    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "device error: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);

    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += h_u[i];

    printf("two_files n=%d sweeps=%d\n", n, 2 * pairs);
    printf("sum(u) = %.10g\n", sum);
    int probe[5] = {0, 1, 2, n / 2, n - 1};
    for (int k = 0; k < 5; ++k)
        printf("u[%d] = %.10g\n", probe[k], h_u[probe[k]]);

    cudaFree(d_u);
    cudaFree(d_tmp);
    cudaFree(d_f);
    free(h_u);
    free(h_f);
    return 0;
}
