/*
 * matmul.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as matmul.c.  A, B and the zeroed C go to the device once
 * for all repetitions and the checksum; nothing but the two reduction
 * scalars and the four printed elements of C comes back (one
 * `target update` per element: clang allows only one section of an array
 * per update directive).
 *
 * Usage: matmul [n] [m] [p] [reps]
 */
#include <stdio.h>
#include <stdlib.h>

static double *alloc_matrix(int rows, int cols)
{
    double *x = (double *)malloc((size_t)rows * (size_t)cols * sizeof(double));
    if (!x) {
        fprintf(stderr, "out of memory (%d x %d)\n", rows, cols);
        exit(1);
    }
    return x;
}

int main(int argc, char **argv)
{
    int n = 96, m = 80, p = 64, reps = 3;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) m = atoi(argv[2]);
    if (argc > 3) p = atoi(argv[3]);
    if (argc > 4) reps = atoi(argv[4]);
    if (n < 1 || m < 1 || p < 1 || reps < 1) {
        fprintf(stderr, "usage: %s [n] [m] [p] [reps]\n", argv[0]);
        return 1;
    }

    double *a = alloc_matrix(n, p);
    double *b = alloc_matrix(p, m);
    double *c = alloc_matrix(n, m);

    /* small integers: every product and partial sum is exact */
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < p; ++k)
            a[i * p + k] = (double)((i + 2 * k) % 5 - 2);
    for (int k = 0; k < p; ++k)
        for (int j = 0; j < m; ++j)
            b[k * m + j] = (double)((3 * k + j) % 7 - 3);
    for (int i = 0; i < n * m; ++i)
        c[i] = 0.0;

    double sum = 0.0, trace = 0.0;
    #pragma omp target data map(to: a[0:n*p], b[0:p*m], c[0:n*m])
    {
        for (int r = 0; r < reps; ++r) {
            #pragma omp target teams distribute parallel for collapse(2)
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < m; ++j) {
                    double acc = 0.0;
                    for (int k = 0; k < p; ++k)
                        acc += a[i * p + k] * b[k * m + j];
                    c[i * m + j] += acc;
                }
            }
        }

        /* checksum and trace of the leading square block on the device */
        int nd = n < m ? n : m;
        #pragma omp target map(tofrom: sum, trace)
        #pragma omp teams distribute parallel for reduction(+:sum, trace)
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < m; ++j) {
                sum += c[i * m + j];
                if (i == j && i < nd)
                    trace += c[i * m + j];
            }
        }

        #pragma omp target update from(c[0:1])
        #pragma omp target update from(c[1 * m + 2:1])
        #pragma omp target update from(c[(n - 1) * m + (m - 1):1])
        #pragma omp target update from(c[(n / 2) * m + m / 3:1])
    }

    printf("matmul: n=%d m=%d p=%d reps=%d\n", n, m, p, reps);
    printf("sum(C) = %.6g  trace(C) = %.6g\n", sum, trace);
    printf("C[0][0] = %.6g  C[1][2] = %.6g  C[n-1][m-1] = %.6g  C[n/2][m/3] = %.6g\n",
           c[0], c[1 * m + 2], c[(n - 1) * m + (m - 1)], c[(n / 2) * m + m / 3]);

    free(a);
    free(b);
    free(c);
    return 0;
}
