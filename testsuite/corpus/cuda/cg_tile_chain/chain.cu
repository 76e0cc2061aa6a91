/* cg_tile_chain: scale, bias, flip each tile and sum each tile of a signal, all on one
 * stream with asynchronous copies; kernels in tile_ops.cuh use cooperative groups. */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

#define TILE 128
typedef float real;
#include "tile_ops.cuh"

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(err_));                                 \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static double checksum(const real *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += (double)v[i] * (1 + i % 7);
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int blocks = (n + TILE - 1) / TILE;
    size_t bytes = (size_t)n * sizeof(real);
    real *h_in = (real *)malloc(bytes);
    real *h_out = (real *)malloc(bytes);
    real *h_sums = (real *)malloc(blocks * sizeof(real));
    for (int i = 0; i < n; i++)
        h_in[i] = (real)((i * 37) % 101) / 16.0f;

    float *d_in, *d_scaled, *d_out;
    float *d_biased = NULL;
    float *d_sums;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc((void **)&d_in, bytes));
    CHECK(cudaMalloc((void **)&d_scaled, bytes));
    CHECK(cudaMalloc((void **)&d_biased, bytes));
    CHECK(cudaMalloc((void **)&d_out, bytes));
    CHECK(cudaMalloc((void **)&d_sums, blocks * sizeof(real)));

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    scale_k<<<blocks, TILE, 0, stream>>>(d_scaled, d_in, 0.5f, n);
    bias_k<<<blocks, TILE, 0, (stream)>>>(d_biased, d_scaled, 1.25f, n);
    flip_k<<<blocks, TILE, 0, stream>>>(d_out, d_biased, n);
    tile_sums_k<<<blocks, TILE, 0, stream>>>(d_out, d_sums, n);
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaMemcpyAsync(h_sums, d_sums, blocks * sizeof(real), cudaMemcpyDeviceToHost, stream));
    cudaEventRecord(stop, stream);
    CHECK(cudaStreamSynchronize(stream));
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);

    printf("n=%d tiles=%d\n", n, blocks);
    printf("out[0]=%.4f out[%d]=%.4f\n", h_out[0], TILE - 1, h_out[TILE - 1]);
    printf("checksum out=%.4f sums=%.4f\n", checksum(h_out, n), checksum(h_sums, blocks));
    printf("Processing time: %.3f ms\n", ms);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_scaled));
    CHECK(cudaFree(d_biased));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_sums));
    CHECK(cudaStreamDestroy(stream));
    free(h_in);
    free(h_out);
    free(h_sums);
    return 0;
}
