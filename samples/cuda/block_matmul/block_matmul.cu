/*
 * block_matmul.cu -- C = A B for 2x2 blocks, each block its own buffer.
 *
 * The 2x2 block matrix multiplication row of Kessler's Table 4: for each
 * block C_ij two GPU kernels compute the products P_ij0 = A_i0 B_0j and
 * P_ij1 = A_i1 B_1j, which are copied back and added on the CPU, block by
 * block.  Straight-line host code: 8 products, 4 host additions, 8 uploads
 * and 8 downloads of b x b blocks.
 *
 * Entries are small multiples of 1/8, so every product and sum is exact in
 * float and the output does not depend on the order of the additions.
 *
 * Usage: block_matmul [b]        (block size, default 32; n = 2b)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

/* P = X Y for b x b row-major blocks, one thread per element */
__global__ void gemm_block(int b, const float *X, const float *Y, float *P)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= b * b)
        return;
    int i = t / b, j = t % b;
    float s = 0.0f;
    for (int k = 0; k < b; ++k)
        s += X[i * b + k] * Y[k * b + j];
    P[i * b + j] = s;
}

int main(int argc, char **argv)
{
    int b = 32;
    if (argc > 1)
        b = atoi(argv[1]);
    if (b < 1) {
        fprintf(stderr, "usage: %s [block size > 0]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)b * b * sizeof(float);
    int blocks = (b * b + BLOCK - 1) / BLOCK;

    float *h_A00 = (float *)malloc(bytes);
    float *h_A01 = (float *)malloc(bytes);
    float *h_A10 = (float *)malloc(bytes);
    float *h_A11 = (float *)malloc(bytes);
    float *h_B00 = (float *)malloc(bytes);
    float *h_B01 = (float *)malloc(bytes);
    float *h_B10 = (float *)malloc(bytes);
    float *h_B11 = (float *)malloc(bytes);
    float *h_P000 = (float *)malloc(bytes);
    float *h_P001 = (float *)malloc(bytes);
    float *h_P010 = (float *)malloc(bytes);
    float *h_P011 = (float *)malloc(bytes);
    float *h_P100 = (float *)malloc(bytes);
    float *h_P101 = (float *)malloc(bytes);
    float *h_P110 = (float *)malloc(bytes);
    float *h_P111 = (float *)malloc(bytes);
    float *h_C00 = (float *)malloc(bytes);
    float *h_C01 = (float *)malloc(bytes);
    float *h_C10 = (float *)malloc(bytes);
    float *h_C11 = (float *)malloc(bytes);
    if (!h_A00 || !h_A01 || !h_A10 || !h_A11 || !h_B00 || !h_B01 || !h_B10 || !h_B11 ||
        !h_P000 || !h_P001 || !h_P010 || !h_P011 || !h_P100 || !h_P101 ||
        !h_P110 || !h_P111 || !h_C00 || !h_C01 || !h_C10 || !h_C11) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (int k = 0; k < b * b; ++k) {
        h_A00[k] = 0.125f * (float)((k + 0) % 9 - 4);
        h_B00[k] = 0.125f * (float)((3 * k + 0) % 7 - 3);
        h_A01[k] = 0.125f * (float)((k + 1) % 9 - 4);
        h_B01[k] = 0.125f * (float)((3 * k + 1) % 7 - 3);
        h_A10[k] = 0.125f * (float)((k + 2) % 9 - 4);
        h_B10[k] = 0.125f * (float)((3 * k + 2) % 7 - 3);
        h_A11[k] = 0.125f * (float)((k + 3) % 9 - 4);
        h_B11[k] = 0.125f * (float)((3 * k + 3) % 7 - 3);
    }

    float *d_A00, *d_A01, *d_A10, *d_A11, *d_B00, *d_B01, *d_B10, *d_B11;
    float *d_P000, *d_P001, *d_P010, *d_P011, *d_P100, *d_P101, *d_P110, *d_P111;
    cudaMalloc((void **)&d_A00, bytes);
    cudaMalloc((void **)&d_A01, bytes);
    cudaMalloc((void **)&d_A10, bytes);
    cudaMalloc((void **)&d_A11, bytes);
    cudaMalloc((void **)&d_B00, bytes);
    cudaMalloc((void **)&d_B01, bytes);
    cudaMalloc((void **)&d_B10, bytes);
    cudaMalloc((void **)&d_B11, bytes);
    cudaMalloc((void **)&d_P000, bytes);
    cudaMalloc((void **)&d_P001, bytes);
    cudaMalloc((void **)&d_P010, bytes);
    cudaMalloc((void **)&d_P011, bytes);
    cudaMalloc((void **)&d_P100, bytes);
    cudaMalloc((void **)&d_P101, bytes);
    cudaMalloc((void **)&d_P110, bytes);
    cudaMalloc((void **)&d_P111, bytes);
    cudaMemcpy(d_A00, h_A00, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A01, h_A01, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A10, h_A10, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A11, h_A11, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B00, h_B00, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B01, h_B01, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B10, h_B10, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B11, h_B11, bytes, cudaMemcpyHostToDevice);

    /* C00 = A00 B00 + A01 B10 */
    gemm_block<<<blocks, BLOCK>>>(b, d_A00, d_B00, d_P000);
    gemm_block<<<blocks, BLOCK>>>(b, d_A01, d_B10, d_P001);
    cudaMemcpy(h_P000, d_P000, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_P001, d_P001, bytes, cudaMemcpyDeviceToHost);
    for (int k = 0; k < b * b; ++k)
        h_C00[k] = h_P000[k] + h_P001[k];

    /* C01 = A00 B01 + A01 B11 */
    gemm_block<<<blocks, BLOCK>>>(b, d_A00, d_B01, d_P010);
    gemm_block<<<blocks, BLOCK>>>(b, d_A01, d_B11, d_P011);
    cudaMemcpy(h_P010, d_P010, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_P011, d_P011, bytes, cudaMemcpyDeviceToHost);
    for (int k = 0; k < b * b; ++k)
        h_C01[k] = h_P010[k] + h_P011[k];

    /* C10 = A10 B00 + A11 B10 */
    gemm_block<<<blocks, BLOCK>>>(b, d_A10, d_B00, d_P100);
    gemm_block<<<blocks, BLOCK>>>(b, d_A11, d_B10, d_P101);
    cudaMemcpy(h_P100, d_P100, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_P101, d_P101, bytes, cudaMemcpyDeviceToHost);
    for (int k = 0; k < b * b; ++k)
        h_C10[k] = h_P100[k] + h_P101[k];

    /* C11 = A10 B01 + A11 B11 */
    gemm_block<<<blocks, BLOCK>>>(b, d_A10, d_B01, d_P110);
    gemm_block<<<blocks, BLOCK>>>(b, d_A11, d_B11, d_P111);
    cudaMemcpy(h_P110, d_P110, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_P111, d_P111, bytes, cudaMemcpyDeviceToHost);
    for (int k = 0; k < b * b; ++k)
        h_C11[k] = h_P110[k] + h_P111[k];

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    double checksum = 0.0;
    for (int k = 0; k < b * b; ++k)
        checksum += (k % 13 + 1) * (h_C00[k] + 2.0 * h_C01[k] + 3.0 * h_C10[k] + 4.0 * h_C11[k]);
    printf("block matmul 2x2 blocks of %dx%d\n", b, b);
    printf("checksum %.10g\n", checksum);
    printf("C00[0] = %g C01[1] = %g C10[b] = %g C11[last] = %g\n", h_C00[0], h_C01[1], h_C10[b],
           h_C11[b * b - 1]);

    cudaFree(d_A00);
    cudaFree(d_A01);
    cudaFree(d_A10);
    cudaFree(d_A11);
    cudaFree(d_B00);
    cudaFree(d_B01);
    cudaFree(d_B10);
    cudaFree(d_B11);
    cudaFree(d_P000);
    cudaFree(d_P001);
    cudaFree(d_P010);
    cudaFree(d_P011);
    cudaFree(d_P100);
    cudaFree(d_P101);
    cudaFree(d_P110);
    cudaFree(d_P111);
    free(h_A00);
    free(h_A01);
    free(h_A10);
    free(h_A11);
    free(h_B00);
    free(h_B01);
    free(h_B10);
    free(h_B11);
    free(h_P000);
    free(h_P001);
    free(h_P010);
    free(h_P011);
    free(h_P100);
    free(h_P101);
    free(h_P110);
    free(h_P111);
    free(h_C00);
    free(h_C01);
    free(h_C10);
    free(h_C11);
    return 0;
}
