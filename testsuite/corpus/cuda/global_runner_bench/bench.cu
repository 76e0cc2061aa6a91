// Element-type benchmark in the style of a vendor sample: the device and host buffers are
// globals that main allocates and fills once; every runner of runners.cuh reads and writes them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "bench_config.h"

unsigned char *d_in, *d_out;
unsigned char *h_in, *h_out;

#include "bench_kernels.cuh"

// the runners launch on the device buffers main sets up (d_in, d_out) and check the result
// in h_out against h_in: their calls in main name no buffer
static double elapsed_ms(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0.0f;
    BENCH_CHECK(cudaEventElapsedTime(&ms, from, to));
    return ms;
}

// one element type: clear the output, launch BENCH_REPEATS times, copy back, compare on the host
template <typename T> int run_blend(const char *label, T weight)
{
    const int count = BENCH_BYTES / (int)sizeof(T);
    const int blocks = (count + BENCH_BLOCK - 1) / BENCH_BLOCK;
    cudaEvent_t start, stop;
    BENCH_CHECK(cudaEventCreate(&start));
    BENCH_CHECK(cudaEventCreate(&stop));
    BENCH_CHECK(cudaMemset(d_out, 0, BENCH_BYTES));
    BENCH_CHECK(cudaEventRecord(start, 0));
    for (int r = 0; r < BENCH_REPEATS; r++)
        blend<T><<<blocks, BENCH_BLOCK>>>((T *)d_out, (const T *)d_in, count, weight);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaEventRecord(stop, 0));
    BENCH_CHECK(cudaEventSynchronize(stop));
    printf("%-8s time %.3f ms\n", label, elapsed_ms(start, stop) / BENCH_REPEATS);
    BENCH_CHECK(cudaMemcpy(h_out, d_out, BENCH_BYTES, cudaMemcpyDeviceToHost));
    const T *got = (const T *)h_out, *src = (const T *)h_in;
    int wrong = 0;
    double sum = 0.0;
    for (int i = 0; i < count; i++) {
        T want = weight * src[i] + (T)1 - weight;
        if (got[i] != want)
            wrong++;
        sum += (double)got[i];
    }
    printf("%-8s %d elements, checksum %.4e, %d wrong\n", label, count, sum, wrong);
    BENCH_CHECK(cudaEventDestroy(start));
    BENCH_CHECK(cudaEventDestroy(stop));
    return wrong;
}

// the same buffers as 32-bit words, reversed
int run_reverse(void)
{
    const int count = BENCH_BYTES / (int)sizeof(unsigned int);
    BENCH_CHECK(cudaMemset(d_out, 0, BENCH_BYTES));
    reverse_words<<<(count + BENCH_BLOCK - 1) / BENCH_BLOCK, BENCH_BLOCK>>>(
        (unsigned int *)d_out, (const unsigned int *)d_in, count);
    BENCH_CHECK(cudaMemcpy(h_out, d_out, BENCH_BYTES, cudaMemcpyDeviceToHost));
    const unsigned int *got = (const unsigned int *)h_out, *src = (const unsigned int *)h_in;
    int wrong = 0;
    for (int i = 0; i < count; i++)
        wrong += got[i] != (src[count - 1 - i] ^ BENCH_WORD_MASK);
    printf("words    %d elements, first %08x, %d wrong\n", count, got[0], wrong);
    return wrong;
}

int main(int argc, char **argv)
{
    int failures = 0;
    printf("allocating %d bytes per buffer\n", BENCH_BYTES);
    h_in = (unsigned char *)malloc(BENCH_BYTES);
    h_out = (unsigned char *)malloc(BENCH_BYTES);
    BENCH_CHECK(cudaMalloc((void **)&d_in, BENCH_BYTES));
    BENCH_CHECK(cudaMalloc((void **)&d_out, BENCH_BYTES));
    // small values of every type: float and double sums stay exact
    for (int i = 0; i < BENCH_BYTES; i++)
        h_in[i] = (unsigned char)((i * 7) % 61);
    for (int i = 0; i < BENCH_BYTES / (int)sizeof(float); i++)
        if (i % 3 == 0)
            ((float *)h_in)[i] = (float)(i % 97);
    BENCH_CHECK(cudaMemcpy(d_in, h_in, BENCH_BYTES, cudaMemcpyHostToDevice));
    failures += run_blend<float>("float", 0.5f);
    failures += run_blend<double>("double", 0.25);
    failures += run_blend<int>("int", 3);
    failures += run_reverse();
    cudaThreadSynchronize();
    printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
    BENCH_CHECK(cudaFree(d_in));
    BENCH_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
