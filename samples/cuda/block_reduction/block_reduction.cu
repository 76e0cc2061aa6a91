/*
 * block_reduction.cu -- sum of a large vector, two ways.
 *
 * Variant 1 (one pass): every block reduces 256 elements in shared memory
 * with the classic tree (`__syncthreads()` between levels) and thread 0
 * adds the block's result into a single global accumulator with atomicAdd.
 *
 * Variant 2 (two passes): a fixed-size grid walks the input with a
 * grid-stride loop (two loads per thread per step), reduces in shared
 * memory and writes one partial per block; a second kernel launched with
 * a single block reduces the partials.
 *
 * Elements are multiples of 1/4 with |x| <= 2.25 and n is below 2^21, so
 * every partial sum is exact in float: the atomic order does not matter
 * and both variants print the same number as the host.
 *
 * Usage: block_reduction [n]          (default n = 1000003, n < 2^21)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 256
#define MAX_PARTIAL_BLOCKS 480

#define CHECK(call)                                                         \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorString(e_));                                \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

/* Variant 1: one element per thread, tree in shared memory, atomicAdd. */
__global__ void block_sum_atomic(const float *in, float *sum, int n)
{
    __shared__ float s[256];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    s[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(sum, s[0]);
}

/* Variant 2, pass 1: grid-stride loop, one partial per block. */
__global__ void block_sum_partial(const float *in, float *partial, int n)
{
    __shared__ float s[THREADS];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    unsigned int grid_stride = blockDim.x * 2 * gridDim.x;

    float acc = 0.0f;
    while (i < (unsigned int)n) {
        acc += in[i];
        if (i + blockDim.x < (unsigned int)n)
            acc += in[i + blockDim.x];
        i += grid_stride;
    }
    s[tid] = acc;
    __syncthreads();

    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }

    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

/* Variant 2, pass 2: a single block reduces the per-block partials. */
__global__ void final_sum(const float *partial, float *out, int count)
{
    __shared__ float s[THREADS];

    unsigned int tid = threadIdx.x;
    float acc = 0.0f;
    for (int j = tid; j < count; j += blockDim.x)
        acc += partial[j];
    s[tid] = acc;
    __syncthreads();

    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }

    if (tid == 0)
        out[0] = s[0];
}

int main(int argc, char **argv)
{
    int n = 1000003;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1 || n >= (1 << 21)) {
        fprintf(stderr, "usage: %s [n], 0 < n < 2^21\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * sizeof(float);

    float *h_in = (float *)malloc(bytes);
    double host_sum = 0.0;
    for (int i = 0; i < n; ++i) {
        h_in[i] = 0.25f * (float)(i % 17 - 7);      /* -1.75 .. 2.25 */
        host_sum += h_in[i];
    }

    float *d_in, *d_sum, *d_partial, *d_total;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMalloc(&d_partial, MAX_PARTIAL_BLOCKS * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    /* ---- variant 1: one pass with atomicAdd ---- */
    int blocks1 = (n + THREADS - 1) / THREADS;
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    block_sum_atomic<<<blocks1, THREADS>>>(d_in, d_sum, n);
    CHECK(cudaGetLastError());

    float sum_atomic = 0.0f;
    CHECK(cudaMemcpy(&sum_atomic, d_sum, sizeof(float), cudaMemcpyDeviceToHost));

    /* ---- variant 2: partials, then a single-block second pass ---- */
    int blocks2 = (n + 2 * THREADS - 1) / (2 * THREADS);
    if (blocks2 > MAX_PARTIAL_BLOCKS)
        blocks2 = MAX_PARTIAL_BLOCKS;
    block_sum_partial<<<blocks2, THREADS>>>(d_in, d_partial, n);
    CHECK(cudaGetLastError());
    final_sum<<<1, THREADS>>>(d_partial, d_total, blocks2);
    CHECK(cudaGetLastError());

    float sum_two_pass = 0.0f;
    float *h_partial = (float *)malloc(blocks2 * sizeof(float));
    CHECK(cudaMemcpy(&sum_two_pass, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_partial, d_partial, blocks2 * sizeof(float),
                     cudaMemcpyDeviceToHost));

    printf("block_reduction n=%d\n", n);
    printf("atomic   blocks=%d sum=%.10g\n", blocks1, sum_atomic);
    printf("two-pass blocks=%d sum=%.10g\n", blocks2, sum_two_pass);
    printf("host     sum=%.10g\n", host_sum);
    printf("partial[0]=%.6g partial[%d]=%.6g\n", h_partial[0], blocks2 - 1,
           h_partial[blocks2 - 1]);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_total));
    free(h_partial);
    free(h_in);
    return 0;
}
