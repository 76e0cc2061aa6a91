/* STREAM triad with target offload, written the way the Parallel Research Kernels are:
 * aligned arrays from bench_malloc(bytes), an untimed first iteration, a timed loop.
 * Usage: triad <iterations> <length> */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
    printf("Parallel Research Kernels style\n");
    printf("C11/OpenMP TARGET STREAM triad: A = B + scalar * C\n");
    if (argc < 3) {
        printf("Usage: <# iterations> <vector length>\n");
        return 1;
    }
    int iterations = atoi(argv[1]);
    size_t length = (size_t)atol(argv[2]);
    if (iterations < 1 || length <= 0) {
        printf("ERROR: iterations and length must be positive\n");
        return 1;
    }
    printf("Number of iterations = %d\n", iterations);
    printf("Vector length        = %zu\n", length);

    double nstream_time = 0.0;
    size_t bytes = length * sizeof(double);
    double *A = bench_malloc(bytes);
    double *B = bench_malloc(bytes);
    double *C = bench_malloc(bytes);
    if (A == NULL || B == NULL || C == NULL) {
        printf("ERROR: allocation of %zu bytes failed\n", bytes);
        return 1;
    }
    double scalar = 3.0;

#pragma omp target data map(alloc: B[0:length], C[0:length]) map(from: A[0:length])
    {
#pragma omp target teams distribute parallel for
    for (size_t i = 0; i < length; i++) {
        A[i] = 0.0;
        B[i] = 2.0;
        C[i] = 2.0;
    }
    for (int iter = 0; iter <= iterations; iter++) {
        if (iter == 1)
            nstream_time = bench_wtime();
#pragma omp target teams distribute parallel for
        for (size_t i = 0; i < length; i++)
            A[i] += B[i] + scalar * C[i];
    }
    nstream_time = bench_wtime() - nstream_time;
    }

    int ok = bench_validate(A, length, iterations, scalar);
    if (ok) {
        double avgtime = nstream_time / iterations;
        double nbytes = 4.0 * length * sizeof(double);
        fprintf(stderr, "Rate (MB/s): %lf Avg time (s): %lf\n", 1.e-6 * nbytes / avgtime, avgtime);
    }
    free(A);
    free(B);
    free(C);
    return ok ? 0 : 1;
}
