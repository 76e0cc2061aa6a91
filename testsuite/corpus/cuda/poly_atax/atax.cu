/* atax.cu: two kernels, one over rows and one over columns of A. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
#include "atax.cuh"

__global__ void atax_kernel1(DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < NX) {
        tmp[i] = 0;
        for (int j = 0; j < NY; j++)
            tmp[i] += A[i * NY + j] * x[j];
    }
}

__global__ void atax_kernel2(DATA_TYPE *A, DATA_TYPE *y, DATA_TYPE *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < NY) {
        y[j] = 0;
        for (int i = 0; i < NX; i++)
            y[j] += A[i * NY + j] * tmp[i];
    }
}

static void init_array(DATA_TYPE *x, DATA_TYPE *A)
{
    for (int j = 0; j < NY; j++)
        x[j] = j * M_PI;
    for (int i = 0; i < NX; i++) {
        for (int j = 0; j < NY; j++)
            A[i * NY + j] = ((DATA_TYPE)i * (j)) / NX;
    }
}

static void atax_cpu(DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *y, DATA_TYPE *tmp)
{
    for (int i = 0; i < NY; i++)
        y[i] = 0;
    for (int i = 0; i < NX; i++) {
        tmp[i] = 0;
        for (int j = 0; j < NY; j++)
            tmp[i] = tmp[i] + A[i * NY + j] * x[j];
        for (int j = 0; j < NY; j++)
            y[j] = y[j] + A[i * NY + j] * tmp[i];
    }
}

int main(void)
{
    DATA_TYPE *A = (DATA_TYPE *)malloc(NX * NY * sizeof(DATA_TYPE));
    DATA_TYPE *x = (DATA_TYPE *)malloc(NY * sizeof(DATA_TYPE));
    DATA_TYPE *y = (DATA_TYPE *)malloc(NY * sizeof(DATA_TYPE));
    DATA_TYPE *y_gpu = (DATA_TYPE *)malloc(NY * sizeof(DATA_TYPE));
    DATA_TYPE *tmp = (DATA_TYPE *)malloc(NX * sizeof(DATA_TYPE));
    init_array(x, A);

    DATA_TYPE *A_gpu, *x_gpu, *y_gpu_d, *tmp_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NX * NY);
    cudaMalloc((void **)&x_gpu, sizeof(DATA_TYPE) * NY);
    cudaMalloc((void **)&y_gpu_d, sizeof(DATA_TYPE) * NY);
    cudaMalloc((void **)&tmp_gpu, sizeof(DATA_TYPE) * NX);
    cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NX * NY, cudaMemcpyHostToDevice);
    cudaMemcpy(x_gpu, x, sizeof(DATA_TYPE) * NY, cudaMemcpyHostToDevice);

    clock_t t0 = clock();
    dim3 block(DIM_THREAD_BLOCK_X, 1);
    dim3 grid1((NX + block.x - 1) / block.x, 1);
    dim3 grid2((NY + block.x - 1) / block.x, 1);
    atax_kernel1<<<grid1, block>>>(A_gpu, x_gpu, tmp_gpu);
    cudaDeviceSynchronize();
    atax_kernel2<<<grid2, block>>>(A_gpu, y_gpu_d, tmp_gpu);
    cudaDeviceSynchronize();
    printf("GPU Time in seconds: %f\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    cudaMemcpy(y_gpu, y_gpu_d, sizeof(DATA_TYPE) * NY, cudaMemcpyDeviceToHost);

    atax_cpu(A, x, y, tmp);
    int fail = 0;
    for (int i = 0; i < NY; i++) {
        double a = y[i], b = y_gpu[i];
        if (fabs(a - b) / (fabs(a) + 1e-8) * 100.0 > PERCENT_DIFF_ERROR_THRESHOLD)
            fail++;
    }
    printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of %4.2f Percent: %d\n",
           PERCENT_DIFF_ERROR_THRESHOLD, fail);
    printf("y[17] = %.3f\n", y_gpu[17]);
    cudaFree(A_gpu); cudaFree(x_gpu); cudaFree(y_gpu_d); cudaFree(tmp_gpu);
    free(A); free(x); free(y); free(y_gpu); free(tmp);
    return 0;
}
