/*
 * pointer_alias.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as pointer_alias.c.  `r` and `result` are one buffer, mapped
 * once.  Kernel 1 writes all of it before any device read, so it is only
 * allocated on the device (the host zeros are never needed there).  After
 * kernel 1 the host reads two elements and writes the two end points: just
 * those travel.  The kernels never write r[0] (nor r[n-1]), so the host's
 * copy of r[0] is still current at the end; only the four other printed
 * elements come back.  `input` is read-only on the device: in only.
 *
 * Usage: pointer_alias [n]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 6000;
    if (argc > 1) n = atoi(argv[1]);
    if (n < 8) {
        fprintf(stderr, "usage: %s [n>=8]\n", argv[0]);
        return 1;
    }

    double *input = (double *)malloc((size_t)n * sizeof(double));
    double *result = (double *)malloc((size_t)n * sizeof(double));
    if (!input || !result) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    double *r = result;                 /* alias of result */

    for (int i = 0; i < n; ++i) {
        input[i] = 0.5 * (i % 10) - 2.0;
        result[i] = 0.0;
    }

    double sum = 0.0, sumsq = 0.0;
    #pragma omp target data map(to: input[0:n]) map(alloc: result[0:n])
    {
        /* 1: write through the alias */
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i)
            r[i] = 2.0 * input[i] + 1.0;

        /* host reads through the original name */
        #pragma omp target update from(result[0:1])
        #pragma omp target update from(result[3:1])
        printf("after kernel 1: result[0] = %.6g  result[3] = %.6g\n", result[0], result[3]);

        /* host writes through the alias: pins the two end points */
        r[0] = 100.0;
        r[n - 1] = -100.0;
        #pragma omp target update to(r[0:1])
        #pragma omp target update to(r[n - 1:1])

        /* 2: neighbour smoothing of the interior through the original name,
         *    reads input and the host-modified end points */
        #pragma omp target teams distribute parallel for
        for (int i = 1; i < n - 1; ++i)
            result[i] = result[i] + 0.25 * input[i - 1] + 0.25 * input[i + 1];

        /* 3: fold the end points into every element, through the alias again */
        #pragma omp target teams distribute parallel for
        for (int i = 1; i < n - 1; ++i)
            r[i] += (i % 2 == 0) ? 0.0625 * r[0] : 0.0625 * r[n - 1];

        /* 4: checksum reading the buffer through the original name */
        #pragma omp target teams distribute parallel for reduction(+:sum, sumsq)
        for (int i = 0; i < n; ++i) {
            sum += result[i];
            sumsq += result[i] * result[i];
        }

        /* r[0] was last written by the host; the other printed elements
         * were last written by kernel 2 or 3 */
        #pragma omp target update from(result[1:1])
        #pragma omp target update from(r[2:1])
        #pragma omp target update from(result[n - 2:1])
        #pragma omp target update from(r[n / 2:1])
    }

    /* host reads through both names */
    printf("pointer_alias: n=%d\n", n);
    printf("sum = %.6g  sumsq = %.6g\n", sum, sumsq);
    printf("r[0] = %.6g  result[1] = %.6g  r[2] = %.6g  result[n-2] = %.6g  r[n/2] = %.6g\n",
           r[0], result[1], r[2], result[n - 2], r[n / 2]);

    free(input);
    free(result);       /* r is not freed: same buffer */
    return 0;
}
