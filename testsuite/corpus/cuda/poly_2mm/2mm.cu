/* 2mm.cu: D = alpha*A*B*C + beta*D in two kernels; sizes from -D flags. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef SIZE
#error "build with -DSIZE=n"
#endif
#define NI SIZE
#define NJ (SIZE + 8)
#define NK (SIZE + 16)
#define NL (SIZE - 8)

__global__ void mm2_kernel1(int ni, int nj, int nk, float alpha, float *tmp, float *A, float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float acc = 0;
        for (int k = 0; k < nk; k++)
            acc += alpha * A[i * nk + k] * B[k * nj + j];
        tmp[i * nj + j] = acc;
    }
}

__global__ void mm2_kernel2(int ni, int nj, int nl, float beta, float *tmp, float *C, float *D)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nl) {
        D[i * nl + j] *= beta;
        for (int k = 0; k < nj; k++)
            D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
    }
}

int main(void)
{
    float *A = (float *)malloc(NI * NK * sizeof(float));
    float *B = (float *)malloc(NK * NJ * sizeof(float));
    float *C = (float *)malloc(NJ * NL * sizeof(float));
    float *D = (float *)malloc(NI * NL * sizeof(float));
    for (int i = 0; i < NI * NK; i++) A[i] = (float)(i % 13) / NI;
    for (int i = 0; i < NK * NJ; i++) B[i] = (float)(i % 11) / NJ;
    for (int i = 0; i < NJ * NL; i++) C[i] = (float)(i % 7) / NL;
    for (int i = 0; i < NI * NL; i++) D[i] = (float)(i % 5) / NK;
    float *dA, *dB, *dC, *dD, *dtmp;
    cudaMalloc(&dA, NI * NK * sizeof(float));
    cudaMalloc(&dB, NK * NJ * sizeof(float));
    cudaMalloc(&dC, NJ * NL * sizeof(float));
    cudaMalloc(&dD, NI * NL * sizeof(float));
    cudaMalloc(&dtmp, NI * NJ * sizeof(float));
    cudaMemcpy(dA, A, NI * NK * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, NK * NJ * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C, NJ * NL * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dD, D, NI * NL * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(16, 8);
    dim3 grid1((NJ + 15) / 16, (NI + 7) / 8), grid2((NL + 15) / 16, (NI + 7) / 8);
    mm2_kernel1<<<grid1, block>>>(NI, NJ, NK, 1.5f, dtmp, dA, dB);
    mm2_kernel2<<<grid2, block>>>(NI, NJ, NL, 1.2f, dtmp, dC, dD);
    cudaMemcpy(D, dD, NI * NL * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < NI * NL; i++) sum += D[i];
    printf("2mm checksum %.4f (NI=%d)\n", sum, NI);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD); cudaFree(dtmp);
    free(A); free(B); free(C); free(D);
    return 0;
}
