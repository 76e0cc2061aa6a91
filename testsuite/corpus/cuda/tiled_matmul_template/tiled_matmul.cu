// tiled_matmul: C = A * B with a shared-memory tile kernel that is a template on the tile
// width (16 or 8, chosen on the command line, as vendor samples choose their block size),
// a warm-up launch and a timed loop on a stream, a CPU check of every element. Written here
// in the style of such samples, not copied from them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

typedef float value_t;
#include "matmul_tiles.cuh"

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(EXIT_FAILURE);                                                         \
        }                                                                               \
    } while (0)

static void fill(value_t *m, int count, int seed)
{
    for (int i = 0; i < count; ++i) m[i] = (value_t)((i * 7 + seed) % 13) * 0.25f;
}

static int multiply(int tile, int hA, int wA, int wB, int iterations)
{
    int sizeA = hA * wA, sizeB = wA * wB, sizeC = hA * wB;
    value_t *hA_ = (value_t *)malloc(sizeA * sizeof(value_t));
    value_t *hB_ = (value_t *)malloc(sizeB * sizeof(value_t));
    value_t *hC_ = (value_t *)malloc(sizeC * sizeof(value_t));
    fill(hA_, sizeA, 1);
    fill(hB_, sizeB, 5);
    value_t *dA, *dB, *dC;
    CHECK(cudaMalloc((void **)&dA, sizeA * sizeof(value_t)));
    CHECK(cudaMalloc((void **)&dB, sizeB * sizeof(value_t)));
    CHECK(cudaMalloc((void **)&dC, sizeC * sizeof(value_t)));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMemcpyAsync(dA, hA_, sizeA * sizeof(value_t), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(dB, hB_, sizeB * sizeof(value_t), cudaMemcpyHostToDevice, stream));

    dim3 threads(tile, tile);
    dim3 grid(wB / threads.x, hA / threads.y);
    if (tile == 16)
        tile_product<16><<<grid, threads, 0, stream>>>(dC, dA, dB, wA, wB);
    else
        tile_product<8><<<grid, threads, 0, stream>>>(dC, dA, dB, wA, wB);
    CHECK(cudaStreamSynchronize(stream));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    for (int it = 0; it < iterations; ++it) {
        if (tile == 16)
            tile_product<16><<<grid, threads, 0, stream>>>(dC, dA, dB, wA, wB);
        else
            tile_product<8><<<grid, threads, 0, stream>>>(dC, dA, dB, wA, wB);
    }
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpyAsync(hC_, dC, sizeC * sizeof(value_t), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    printf("Performance: %.3f ms per product (tile %d)\n", ms / iterations, tile);

    int wrong = 0;
    double total = 0.0;
    for (int r = 0; r < hA; ++r)
        for (int c = 0; c < wB; ++c) {
            value_t ref = 0;
            for (int k = 0; k < wA; ++k) ref += hA_[r * wA + k] * hB_[k * wB + c];
            value_t got = hC_[r * wB + c];
            total += got;
            if (got != ref && wrong++ < 5) printf("  C[%d][%d] = %f, expected %f\n", r, c, got, ref);
        }
    printf("%dx%d x %dx%d: sum %.2f, %d wrong\n", hA, wA, wA, wB, total, wrong);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(hA_);
    free(hB_);
    free(hC_);
    return wrong;
}

int main(int argc, char **argv)
{
    int tile = argc > 1 ? atoi(argv[1]) : 16;
    int n = argc > 2 ? atoi(argv[2]) : 32;
    if ((tile != 16 && tile != 8) || n % 16 != 0) {
        fprintf(stderr, "usage: %s [tile 16|8] [n, a multiple of 16]\n", argv[0]);
        return EXIT_FAILURE;
    }
    int wrong = multiply(tile, n, n, 2 * n, 3) + multiply(tile == 16 ? 8 : 16, n / 2, n, n, 2);
    printf("%s\n", wrong ? "Result = FAIL" : "Result = PASS");
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
