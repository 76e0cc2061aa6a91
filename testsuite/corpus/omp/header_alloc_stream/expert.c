/* STREAM (copy, scale, add, triad, dot) with target offload. The arrays come from the
 * suite's header helpers; the first iteration is not timed.
 * Usage: stream <ntimes> <length> */
#include <stdio.h>
#include <stdlib.h>

#include "stream_common.h"

int main(int argc, char **argv)
{
    int ntimes = argc > 1 ? atoi(argv[1]) : 5;
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 50000;
    if (ntimes < 2 || n < 1) {
        printf("usage: stream <ntimes >= 2> <length >= 1>\n");
        return 1;
    }
    printf("STREAM-style kernels, %zu doubles per array, %d times\n", n, ntimes);

    size_t bytes = n * sizeof(double);
    double *a = stream_malloc(bytes);
    double *b = stream_malloc(bytes);
    double *c = stream_malloc(bytes);
    double *w = stream_doubles(n, 0.5);
    if (!a || !b || !c) {
        printf("ERROR: cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }

    const double scalar = 0.4;
    double seconds[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    double dot = 0.0;
#pragma omp target data map(to: w[0:n]) map(tofrom: a[0:n]) map(from: b[0:n], c[0:n])
    {
    for (int k = 0; k < ntimes; k++) {
        double t = stream_clock();
#pragma omp target teams distribute parallel for
        for (size_t i = 0; i < n; i++)
            c[i] = a[i];
        double t1 = stream_clock();
#pragma omp target teams distribute parallel for
        for (size_t i = 0; i < n; i++)
            b[i] = scalar * c[i];
        double t2 = stream_clock();
#pragma omp target teams distribute parallel for
        for (size_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        double t3 = stream_clock();
#pragma omp target teams distribute parallel for
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + scalar * c[i];
        double t4 = stream_clock();
        dot = 0.0;
#pragma omp target teams distribute parallel for reduction(+:dot)
        for (size_t i = 0; i < n; i++)
            dot += a[i] * w[i];
        double t5 = stream_clock();
        if (k > 0) {
            seconds[0] += t1 - t;
            seconds[1] += t2 - t1;
            seconds[2] += t3 - t2;
            seconds[3] += t4 - t3;
            seconds[4] += t5 - t4;
        }
    }
    }

    int ok = stream_check(a, b, c, n, ntimes, scalar, dot);
    stream_rates(seconds, n, ntimes);
    free(a);
    free(b);
    free(c);
    free(w);
    return ok ? 0 : 1;
}
