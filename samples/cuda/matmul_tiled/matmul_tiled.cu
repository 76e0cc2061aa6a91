/*
 * matmul_tiled.cu -- C = A * B with shared-memory tiles.
 *
 * A is M x K, B is K x N, C is M x N, all row-major.  Each 16x16 thread
 * block computes one 16x16 tile of C, staging matching tiles of A and B
 * through shared memory.  The default sizes are not multiples of the tile
 * size, so the loads are guarded and padded with zeros and the store is
 * guarded as well.
 *
 * A holds multiples of 1/2 in [-1.5, 2.5] and B multiples of 1/4 in
 * [-0.5, 1]: every product and every partial sum is exact in float, so
 * the result does not depend on the order of the k loop (nor on FMA
 * contraction).  The (i*k) terms keep the patterns from being periodic.
 *
 * Usage: matmul_tiled [M [N [K]]]      (default 300 250 200)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 16

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err = (call);                                           \
        if (err != cudaSuccess) {                                           \
            fprintf(stderr, "CUDA error '%s' at %s:%d\n",                   \
                    cudaGetErrorString(err), __FILE__, __LINE__);           \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

__global__ void matmul_tiled(const float *A, const float *B, float *C,
                             int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;

    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + tx;
        int b_row = t * TILE + ty;

        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();

        #pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}

static void init_matrices(float *A, float *B, int M, int N, int K)
{
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k)
            A[i * K + k] = 0.5f * (float)((3 * i + 5 * k + (i * k) % 7) % 9 - 3);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j)
            B[k * N + j] = 0.25f * (float)((2 * k + 3 * j + (k * j) % 5) % 7 - 2);
}

int main(int argc, char **argv)
{
    int M = 300, N = 250, K = 200;
    if (argc > 1) M = atoi(argv[1]);
    if (argc > 2) N = atoi(argv[2]);
    if (argc > 3) K = atoi(argv[3]);
    if (M < 1 || N < 1 || K < 1) {
        fprintf(stderr, "usage: %s [M [N [K]]]\n", argv[0]);
        return 1;
    }

    size_t size_a = (size_t)M * K * sizeof(float);
    size_t size_b = (size_t)K * N * sizeof(float);
    size_t size_c = (size_t)M * N * sizeof(float);

    float *h_A = (float *)malloc(size_a);
    float *h_B = (float *)malloc(size_b);
    float *h_C = (float *)malloc(size_c);
    init_matrices(h_A, h_B, M, N, K);

    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_A, size_a));
    CUDA_CHECK(cudaMalloc((void **)&d_B, size_b));
    CUDA_CHECK(cudaMalloc((void **)&d_C, size_c));

    CUDA_CHECK(cudaMemcpy(d_A, h_A, size_a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, h_B, size_b, cudaMemcpyHostToDevice));

    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_C, d_C, size_c, cudaMemcpyDeviceToHost));

    /* plain sum plus a position-weighted sum that notices transposed or
       shifted tiles */
    double checksum = 0.0, weighted = 0.0;
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            double v = h_C[(size_t)i * N + j];
            checksum += v;
            weighted += v * (double)((2 * i + j) % 5 + 1);
        }
    }

    printf("matmul_tiled M=%d N=%d K=%d grid=%dx%d tile=%d\n", M, N, K,
           grid.x, grid.y, TILE);
    printf("checksum %.10g\n", checksum);
    printf("weighted %.10g\n", weighted);
    int rows[4] = {0, 1, M / 2, M - 1};
    int cols[4] = {0, 17, N / 2, N - 1};
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            printf("C[%d][%d] = %.6g\n", rows[r], cols[c],
                   h_C[(size_t)rows[r] * N + cols[c]]);

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
    free(h_A);
    free(h_B);
    free(h_C);
    return 0;
}
