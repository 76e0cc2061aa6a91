/*
 * bicgk.cu -- the BiCGK sequence from the BiCG-stab solver.
 *
 *     q = A   p        (GEMV,   one thread per row of A)
 *     s = A^T r        (GEMV^T, one thread per column of A)
 *
 * A is nx x ny, row-major.  Both kernels stream the same matrix, which is
 * what makes the pair a classic candidate for kernel fusion: a fused
 * kernel reads A once.  One kernel per BLAS call, as in PolyBench/GPU.
 *
 * All inputs are small multiples of 1/8, 1/4 and 1/2, so the dot products
 * are exact in float.
 *
 * Usage: bicgk [nx [ny]]        (default 2000 1700)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define DIM_THREAD_BLOCK 256

/* q = A * p : thread i walks row i */
__global__ void bicg_kernel_q(const float *A, const float *p, float *q,
                              int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float sum = 0.0f;
        for (int j = 0; j < ny; j++)
            sum += A[i * ny + j] * p[j];
        q[i] = sum;
    }
}

/* s = A^T * r : thread j walks column j (coalesced across the warp) */
__global__ void bicg_kernel_s(const float *A, const float *r, float *s,
                              int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float sum = 0.0f;
        for (int i = 0; i < nx; i++)
            sum += r[i] * A[i * ny + j];
        s[j] = sum;
    }
}

static void init_arrays(float *A, float *p, float *r, int nx, int ny)
{
    for (int i = 0; i < nx; i++) {
        r[i] = 0.5f * (float)(i % 7 - 2);
        for (int j = 0; j < ny; j++)
            A[i * ny + j] = 0.125f * (float)((7 * i + 3 * j + (i * j) % 5) % 9 - 3);
    }
    for (int j = 0; j < ny; j++)
        p[j] = 0.25f * (float)(j % 5 - 1);
}

static double checksum(const float *v, int n)
{
    double sum = 0.0;
    for (int k = 0; k < n; k++)
        sum += (double)v[k] * (double)((k % 3) + 1);   /* position-weighted */
    return sum;
}

int main(int argc, char **argv)
{
    int nx = 2000, ny = 1700;
    if (argc > 1) nx = atoi(argv[1]);
    if (argc > 2) ny = atoi(argv[2]);
    if (nx < 1 || ny < 1) {
        fprintf(stderr, "usage: %s [nx [ny]]\n", argv[0]);
        return 1;
    }

    float *A = (float *)malloc((size_t)nx * ny * sizeof(float));
    float *p = (float *)malloc(ny * sizeof(float));
    float *r = (float *)malloc(nx * sizeof(float));
    float *q = (float *)malloc(nx * sizeof(float));
    float *s = (float *)malloc(ny * sizeof(float));
    init_arrays(A, p, r, nx, ny);

    float *A_gpu, *p_gpu, *r_gpu, *q_gpu, *s_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(float) * nx * ny);
    cudaMalloc((void **)&p_gpu, sizeof(float) * ny);
    cudaMalloc((void **)&r_gpu, sizeof(float) * nx);
    cudaMalloc((void **)&q_gpu, sizeof(float) * nx);
    cudaMalloc((void **)&s_gpu, sizeof(float) * ny);

    cudaMemcpy(A_gpu, A, sizeof(float) * nx * ny, cudaMemcpyHostToDevice);
    cudaMemcpy(p_gpu, p, sizeof(float) * ny, cudaMemcpyHostToDevice);
    cudaMemcpy(r_gpu, r, sizeof(float) * nx, cudaMemcpyHostToDevice);

    dim3 block(DIM_THREAD_BLOCK, 1);
    dim3 grid_q((nx + DIM_THREAD_BLOCK - 1) / DIM_THREAD_BLOCK, 1);
    dim3 grid_s((ny + DIM_THREAD_BLOCK - 1) / DIM_THREAD_BLOCK, 1);

    bicg_kernel_q<<<grid_q, block>>>(A_gpu, p_gpu, q_gpu, nx, ny);
    bicg_kernel_s<<<grid_s, block>>>(A_gpu, r_gpu, s_gpu, nx, ny);
    cudaDeviceSynchronize();

    cudaMemcpy(q, q_gpu, sizeof(float) * nx, cudaMemcpyDeviceToHost);
    cudaMemcpy(s, s_gpu, sizeof(float) * ny, cudaMemcpyDeviceToHost);

    printf("bicgk nx=%d ny=%d\n", nx, ny);
    printf("q checksum %.10g\n", checksum(q, nx));
    printf("s checksum %.10g\n", checksum(s, ny));
    int iq[4] = {0, 1, nx / 2, nx - 1};
    int is[4] = {0, 2, ny / 2, ny - 1};
    for (int k = 0; k < 4; k++)
        printf("q[%d] = %.6g   s[%d] = %.6g\n", iq[k], q[iq[k]], is[k], s[is[k]]);

    cudaFree(A_gpu);
    cudaFree(p_gpu);
    cudaFree(r_gpu);
    cudaFree(q_gpu);
    cudaFree(s_gpu);
    free(A);
    free(p);
    free(r);
    free(q);
    free(s);
    return 0;
}
