/*
 * gemver.cu -- the GEMVER kernel (PolyBench), one CUDA kernel per BLAS call.
 *
 *     B = A + u1 v1^T + u2 v2^T      rank-2 update       (ger2_kernel)
 *     x = beta B^T y                 transposed GEMV     (gemv_t_kernel)
 *     x = x + z                      AXPY                (vec_add_kernel)
 *     w = alpha B x                  GEMV                (gemv_kernel)
 *
 * Every kernel reads the result of the previous one, so the sequence has
 * a true dependence chain through B and x; B and x never go back to the
 * host.  All matrices are n x n, row-major.
 *
 * Inputs are chosen on dyadic grids so that, for n up to the default,
 * every product and partial sum is exact in float.
 *
 * Usage: gemver [n]             (default 1000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define GER_BLOCK_X 32
#define GER_BLOCK_Y 8
#define VEC_BLOCK 256

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t status_ = (call);                                       \
        if (status_ != cudaSuccess) {                                       \
            fprintf(stderr, "CUDA failure %s:%d: '%s'\n", __FILE__,         \
                    __LINE__, cudaGetErrorString(status_));                 \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

/* B[i][j] = A[i][j] + u1[i]*v1[j] + u2[i]*v2[j] on a 2-D grid */
__global__ void ger2_kernel(const float *A, float *B, const float *u1,
                            const float *v1, const float *u2, const float *v2,
                            int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n)
        B[i * n + j] = A[i * n + j] + u1[i] * v1[j] + u2[i] * v2[j];
}

/* x[i] = beta * sum_j B[j][i] * y[j] */
__global__ void gemv_t_kernel(const float *B, const float *y, float *x,
                              float beta, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j)
            acc += B[j * n + i] * y[j];
        x[i] = beta * acc;
    }
}

/* x[i] += z[i] */
__global__ void vec_add_kernel(float *x, const float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += z[i];
}

/* w[i] = alpha * sum_j B[i][j] * x[j] */
__global__ void gemv_kernel(const float *B, const float *x, float *w,
                            float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j)
            acc += B[i * n + j] * x[j];
        w[i] = alpha * acc;
    }
}

int main(int argc, char **argv)
{
    int n = 1000;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n]\n", argv[0]);
        return 1;
    }

    const float alpha = 0.5f;
    const float beta = 1.5f;
    size_t mat_bytes = (size_t)n * n * sizeof(float);
    size_t vec_bytes = (size_t)n * sizeof(float);

    float *h_A = (float *)malloc(mat_bytes);
    float *h_u1 = (float *)malloc(vec_bytes);
    float *h_v1 = (float *)malloc(vec_bytes);
    float *h_u2 = (float *)malloc(vec_bytes);
    float *h_v2 = (float *)malloc(vec_bytes);
    float *h_y = (float *)malloc(vec_bytes);
    float *h_z = (float *)malloc(vec_bytes);
    float *h_x = (float *)malloc(vec_bytes);
    float *h_w = (float *)malloc(vec_bytes);

    for (int i = 0; i < n; ++i) {
        h_u1[i] = 0.5f * (float)(i % 3 - 1);
        h_v1[i] = 0.25f * (float)(i % 5 - 2);
        h_u2[i] = 0.25f * (float)(i % 4 - 2);
        h_v2[i] = 0.5f * (float)(i % 3 - 1);
        h_y[i] = 0.125f * (float)(i % 7 - 2);
        h_z[i] = 0.25f * (float)(i % 5);
        for (int j = 0; j < n; ++j)
            h_A[(size_t)i * n + j] = 0.25f * (float)((3 * i + 5 * j) % 9 - 4);
    }

    float *d_A, *d_B, *d_u1, *d_v1, *d_u2, *d_v2, *d_y, *d_z, *d_x, *d_w;
    CUDA_CHECK(cudaMalloc(&d_A, mat_bytes));
    CUDA_CHECK(cudaMalloc(&d_B, mat_bytes));
    CUDA_CHECK(cudaMalloc(&d_u1, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_v1, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_u2, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_v2, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_y, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_z, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_x, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_w, vec_bytes));

    CUDA_CHECK(cudaMemcpy(d_A, h_A, mat_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_u1, h_u1, vec_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_v1, h_v1, vec_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_u2, h_u2, vec_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_v2, h_v2, vec_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, h_y, vec_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_z, h_z, vec_bytes, cudaMemcpyHostToDevice));

    dim3 ger_block(GER_BLOCK_X, GER_BLOCK_Y);
    dim3 ger_grid((n + GER_BLOCK_X - 1) / GER_BLOCK_X,
                  (n + GER_BLOCK_Y - 1) / GER_BLOCK_Y);
    int vec_grid = (n + VEC_BLOCK - 1) / VEC_BLOCK;

    ger2_kernel<<<ger_grid, ger_block>>>(d_A, d_B, d_u1, d_v1, d_u2, d_v2, n);
    gemv_t_kernel<<<vec_grid, VEC_BLOCK>>>(d_B, d_y, d_x, beta, n);
    vec_add_kernel<<<vec_grid, VEC_BLOCK>>>(d_x, d_z, n);
    gemv_kernel<<<vec_grid, VEC_BLOCK>>>(d_B, d_x, d_w, alpha, n);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(h_x, d_x, vec_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_w, d_w, vec_bytes, cudaMemcpyDeviceToHost));

    double sum_x = 0.0, sum_w = 0.0;
    for (int i = 0; i < n; ++i) {
        sum_x += h_x[i];
        sum_w += h_w[i];
    }

    printf("gemver n=%d alpha=%g beta=%g\n", n, alpha, beta);
    printf("sum(x) = %.10g\n", sum_x);
    printf("sum(w) = %.10g\n", sum_w);
    int probe[5] = {0, 1, 7, n / 2, n - 1};
    for (int k = 0; k < 5; ++k)
        printf("x[%d] = %.6g  w[%d] = %.6g\n", probe[k], h_x[probe[k]],
               probe[k], h_w[probe[k]]);

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_u1));
    CUDA_CHECK(cudaFree(d_v1));
    CUDA_CHECK(cudaFree(d_u2));
    CUDA_CHECK(cudaFree(d_v2));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_z));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_w));
    free(h_A);
    free(h_u1);
    free(h_v1);
    free(h_u2);
    free(h_v2);
    free(h_y);
    free(h_z);
    free(h_x);
    free(h_w);
    return 0;
}
