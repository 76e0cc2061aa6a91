/*
 * cholesky_tiles.cu -- left-looking tiled Cholesky factorisation A = L L^T of a
 * 4x4-tile symmetric positive definite matrix, every tile its own buffer.
 *
 * The 4x4 block Cholesky row of Kessler's Table 4: the ten lower tiles are
 * separate host and device arrays; per block column j the SYRK updates of
 * the diagonal tile and the GEMM updates of the tiles below run on the GPU,
 * the diagonal tile is factorised on the CPU (copied down, POTRF, copied
 * back up), and the TRSMs run on the GPU.  Straight-line host code: 20
 * kernels (6 SYRK, 4 POTRF, 4 GEMM, 6 TRSM), 28 cudaMemcpy calls.
 *
 * A[i][j] = 1 / (1 + |i - j|) off the diagonal and n on it: symmetric and
 * strictly diagonally dominant, so positive definite.  The program prints
 * a checksum of L and the largest entry of |L L^T - A|.
 *
 * Usage: cholesky_tiles [b]      (tile size, default 16; n = 4b)
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

/* A -= L L^T on a diagonal tile (row-major b x b, lower part used) */
__global__ void syrk_tile(int b, const float *L, float *A)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= b * b)
        return;
    int i = t / b, j = t % b;
    if (j > i)
        return;
    float s = 0.0f;
    for (int k = 0; k < b; ++k)
        s += L[i * b + k] * L[j * b + k];
    A[i * b + j] -= s;
}

/* A -= Li Lj^T on an off-diagonal tile */
__global__ void gemm_tile(int b, const float *Li, const float *Lj, float *A)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= b * b)
        return;
    int i = t / b, j = t % b;
    float s = 0.0f;
    for (int k = 0; k < b; ++k)
        s += Li[i * b + k] * Lj[j * b + k];
    A[i * b + j] -= s;
}

/* A = A Ljj^-T: one thread per row, forward substitution in place */
__global__ void trsm_tile(int b, const float *Ljj, float *A)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= b)
        return;
    for (int j = 0; j < b; ++j) {
        float s = A[i * b + j];
        for (int k = 0; k < j; ++k)
            s -= A[i * b + k] * Ljj[j * b + k];
        A[i * b + j] = s / Ljj[j * b + j];
    }
}

/* in-place Cholesky of one diagonal tile on the host (upper part zeroed) */
static void potrf_tile(int b, float *A)
{
    for (int j = 0; j < b; ++j) {
        float d = A[j * b + j];
        for (int k = 0; k < j; ++k)
            d -= A[j * b + k] * A[j * b + k];
        d = sqrtf(d);
        A[j * b + j] = d;
        for (int i = j + 1; i < b; ++i) {
            float s = A[i * b + j];
            for (int k = 0; k < j; ++k)
                s -= A[i * b + k] * A[j * b + k];
            A[i * b + j] = s / d;
        }
        for (int i = 0; i < j; ++i)
            A[i * b + j] = 0.0f;
    }
}

static float entry(int n, int r, int c)
{
    return r == c ? (float)n : 1.0f / (float)(1 + abs(r - c));
}

static void init_tile(int b, int bi, int bj, float *tile)
{
    for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c)
            tile[r * b + c] = entry(4 * b, bi * b + r, bj * b + c);
}

static void place_tile(int b, int bi, int bj, const float *tile, float *full)
{
    for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c)
            full[(bi * b + r) * (4 * b) + bj * b + c] = tile[r * b + c];
}

int main(int argc, char **argv)
{
    int b = 16;
    if (argc > 1)
        b = atoi(argv[1]);
    if (b < 1) {
        fprintf(stderr, "usage: %s [tile size > 0]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)b * b * sizeof(float);
    int blocks = (b * b + BLOCK - 1) / BLOCK;
    int row_blocks = (b + BLOCK - 1) / BLOCK;

    float *h_A00 = (float *)malloc(bytes);
    float *h_A10 = (float *)malloc(bytes);
    float *h_A20 = (float *)malloc(bytes);
    float *h_A30 = (float *)malloc(bytes);
    float *h_A11 = (float *)malloc(bytes);
    float *h_A21 = (float *)malloc(bytes);
    float *h_A31 = (float *)malloc(bytes);
    float *h_A22 = (float *)malloc(bytes);
    float *h_A32 = (float *)malloc(bytes);
    float *h_A33 = (float *)malloc(bytes);
    if (!h_A00 || !h_A10 || !h_A20 || !h_A30 || !h_A11 ||
        !h_A21 || !h_A31 || !h_A22 || !h_A32 || !h_A33) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    init_tile(b, 0, 0, h_A00);
    init_tile(b, 1, 0, h_A10);
    init_tile(b, 2, 0, h_A20);
    init_tile(b, 3, 0, h_A30);
    init_tile(b, 1, 1, h_A11);
    init_tile(b, 2, 1, h_A21);
    init_tile(b, 3, 1, h_A31);
    init_tile(b, 2, 2, h_A22);
    init_tile(b, 3, 2, h_A32);
    init_tile(b, 3, 3, h_A33);

    float *d_A00, *d_A10, *d_A20, *d_A30, *d_A11;
    float *d_A21, *d_A31, *d_A22, *d_A32, *d_A33;
    cudaMalloc((void **)&d_A00, bytes);
    cudaMalloc((void **)&d_A10, bytes);
    cudaMalloc((void **)&d_A20, bytes);
    cudaMalloc((void **)&d_A30, bytes);
    cudaMalloc((void **)&d_A11, bytes);
    cudaMalloc((void **)&d_A21, bytes);
    cudaMalloc((void **)&d_A31, bytes);
    cudaMalloc((void **)&d_A22, bytes);
    cudaMalloc((void **)&d_A32, bytes);
    cudaMalloc((void **)&d_A33, bytes);
    cudaMemcpy(d_A00, h_A00, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A10, h_A10, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A20, h_A20, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A30, h_A30, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A11, h_A11, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A21, h_A21, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A31, h_A31, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A22, h_A22, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A32, h_A32, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_A33, h_A33, bytes, cudaMemcpyHostToDevice);

    /* block column 0 */
    cudaMemcpy(h_A00, d_A00, bytes, cudaMemcpyDeviceToHost);
    potrf_tile(b, h_A00);
    cudaMemcpy(d_A00, h_A00, bytes, cudaMemcpyHostToDevice);
    trsm_tile<<<row_blocks, BLOCK>>>(b, d_A00, d_A10);
    trsm_tile<<<row_blocks, BLOCK>>>(b, d_A00, d_A20);
    trsm_tile<<<row_blocks, BLOCK>>>(b, d_A00, d_A30);

    /* block column 1 */
    syrk_tile<<<blocks, BLOCK>>>(b, d_A10, d_A11);
    cudaMemcpy(h_A11, d_A11, bytes, cudaMemcpyDeviceToHost);
    potrf_tile(b, h_A11);
    cudaMemcpy(d_A11, h_A11, bytes, cudaMemcpyHostToDevice);
    gemm_tile<<<blocks, BLOCK>>>(b, d_A20, d_A10, d_A21);
    gemm_tile<<<blocks, BLOCK>>>(b, d_A30, d_A10, d_A31);
    trsm_tile<<<row_blocks, BLOCK>>>(b, d_A11, d_A21);
    trsm_tile<<<row_blocks, BLOCK>>>(b, d_A11, d_A31);

    /* block column 2 */
    syrk_tile<<<blocks, BLOCK>>>(b, d_A20, d_A22);
    syrk_tile<<<blocks, BLOCK>>>(b, d_A21, d_A22);
    cudaMemcpy(h_A22, d_A22, bytes, cudaMemcpyDeviceToHost);
    potrf_tile(b, h_A22);
    cudaMemcpy(d_A22, h_A22, bytes, cudaMemcpyHostToDevice);
    gemm_tile<<<blocks, BLOCK>>>(b, d_A30, d_A20, d_A32);
    gemm_tile<<<blocks, BLOCK>>>(b, d_A31, d_A21, d_A32);
    trsm_tile<<<row_blocks, BLOCK>>>(b, d_A22, d_A32);

    /* block column 3 */
    syrk_tile<<<blocks, BLOCK>>>(b, d_A30, d_A33);
    syrk_tile<<<blocks, BLOCK>>>(b, d_A31, d_A33);
    syrk_tile<<<blocks, BLOCK>>>(b, d_A32, d_A33);
    cudaMemcpy(h_A33, d_A33, bytes, cudaMemcpyDeviceToHost);
    potrf_tile(b, h_A33);
    cudaMemcpy(d_A33, h_A33, bytes, cudaMemcpyHostToDevice);

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_A10, d_A10, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_A20, d_A20, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_A30, d_A30, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_A21, d_A21, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_A31, d_A31, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_A32, d_A32, bytes, cudaMemcpyDeviceToHost);

    /* L L^T against A on the assembled factor */
    int n = 4 * b;
    float *L = (float *)calloc((size_t)n * n, sizeof(float));
    if (!L) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    place_tile(b, 0, 0, h_A00, L);
    place_tile(b, 1, 0, h_A10, L);
    place_tile(b, 2, 0, h_A20, L);
    place_tile(b, 3, 0, h_A30, L);
    place_tile(b, 1, 1, h_A11, L);
    place_tile(b, 2, 1, h_A21, L);
    place_tile(b, 3, 1, h_A31, L);
    place_tile(b, 2, 2, h_A22, L);
    place_tile(b, 3, 2, h_A32, L);
    place_tile(b, 3, 3, h_A33, L);
    double checksum = 0.0, worst = 0.0;
    int step = n > 32 ? n / 32 : 1;   /* 32 rows of L L^T: O(n^2) checks, not O(n^3) */
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c <= r; ++c) {
            checksum += L[r * n + c];
            if (r % step != step - 1)
                continue;
            double s = 0.0;
            for (int k = 0; k <= c; ++k)
                s += (double)L[r * n + k] * L[c * n + k];
            worst = fmax(worst, fabs(s - entry(n, r, c)));
        }
    }
    printf("cholesky 4x4 tiles of %dx%d\n", b, b);
    printf("checksum %.10g\n", checksum);
    printf("max |LL^T - A| %s 1e-3\n", worst < 1e-3 ? "<" : ">=");
    printf("L[0][0] = %.9g L[n-1][n-1] = %.9g\n", L[0], L[n * n - 1]);
    free(L);

    cudaFree(d_A00);
    cudaFree(d_A10);
    cudaFree(d_A20);
    cudaFree(d_A30);
    cudaFree(d_A11);
    cudaFree(d_A21);
    cudaFree(d_A31);
    cudaFree(d_A22);
    cudaFree(d_A32);
    cudaFree(d_A33);
    free(h_A00);
    free(h_A10);
    free(h_A20);
    free(h_A30);
    free(h_A11);
    free(h_A21);
    free(h_A31);
    free(h_A22);
    free(h_A32);
    free(h_A33);
    return 0;
}
