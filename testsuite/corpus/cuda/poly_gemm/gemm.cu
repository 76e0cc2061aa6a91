/* gemm.cu: C = alpha * A * B + beta * C, GPU against a CPU reference. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <sys/time.h>
#include <cuda.h>

#include "gemm.cuh"

static double rtclock(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1.0e-6;
}

static float percent_diff(double a, double b)
{
    if (fabs(a) < 0.01 && fabs(b) < 0.01)
        return 0.0f;
    return 100.0f * fabs(fabs(a - b) / fabs(a + 0.00000001));
}

static void gemm_cpu(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            C[i * NJ + j] *= BETA;
            for (int k = 0; k < NK; ++k)
                C[i * NJ + j] += ALPHA * A[i * NK + k] * B[k * NJ + j];
        }
}

static void init(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NK; j++)
            A[i * NK + j] = ((DATA_TYPE)i * j) / NI;
    for (int i = 0; i < NK; i++)
        for (int j = 0; j < NJ; j++)
            B[i * NJ + j] = ((DATA_TYPE)i * j) / NI;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            C[i * NJ + j] = ((DATA_TYPE)i * j) / NI;
}

__global__ void gemm_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < NI) && (j < NJ)) {
        c[i * NJ + j] *= BETA;
        for (int k = 0; k < NK; k++)
            c[i * NJ + j] += ALPHA * a[i * NK + k] * b[k * NJ + j];
    }
}

static void compare(DATA_TYPE *C, DATA_TYPE *C_out)
{
    int fail = 0;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            if (percent_diff(C[i * NJ + j], C_out[i * NJ + j]) > PERCENT_DIFF_ERROR_THRESHOLD)
                fail++;
    printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of %4.2f Percent: %d\n",
           PERCENT_DIFF_ERROR_THRESHOLD, fail);
}

static void gemm_cuda(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C, DATA_TYPE *C_out)
{
    DATA_TYPE *A_gpu, *B_gpu, *C_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NI * NK);
    cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * NK * NJ);
    cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * NI * NJ);
    cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NI * NK, cudaMemcpyHostToDevice);
    cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * NK * NJ, cudaMemcpyHostToDevice);
    cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * NI * NJ, cudaMemcpyHostToDevice);

    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)(ceil(((float)NJ) / ((float)block.x))),
              (size_t)(ceil(((float)NI) / ((float)block.y))));
    double t_start = rtclock();
    gemm_kernel<<<grid, block>>>(A_gpu, B_gpu, C_gpu);
    cudaThreadSynchronize();
    double t_end = rtclock();
    fprintf(stdout, "GPU Runtime: %0.6lfs\n", t_end - t_start);

    cudaMemcpy(C_out, C_gpu, sizeof(DATA_TYPE) * NI * NJ, cudaMemcpyDeviceToHost);
    cudaFree(A_gpu);
    cudaFree(B_gpu);
    cudaFree(C_gpu);
}

int main(int argc, char *argv[])
{
    DATA_TYPE *A = (DATA_TYPE *)malloc(NI * NK * sizeof(DATA_TYPE));
    DATA_TYPE *B = (DATA_TYPE *)malloc(NK * NJ * sizeof(DATA_TYPE));
    DATA_TYPE *C = (DATA_TYPE *)malloc(NI * NJ * sizeof(DATA_TYPE));
    DATA_TYPE *C_out = (DATA_TYPE *)malloc(NI * NJ * sizeof(DATA_TYPE));
    init(A, B, C);
    gemm_cuda(A, B, C, C_out);
    double t_start = rtclock();
    gemm_cpu(A, B, C);
    double t_end = rtclock();
    fprintf(stdout, "CPU Runtime: %0.6lfs\n", t_end - t_start);
    compare(C, C_out);
    printf("C_out[5][7] = %.4f\n", C_out[5 * NJ + 7]);
    free(A);
    free(B);
    free(C);
    free(C_out);
    return 0;
}
