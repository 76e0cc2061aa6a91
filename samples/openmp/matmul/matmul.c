/*
 * matmul.c -- dense C += A * B, repeated `reps` times (benchmark style),
 * followed by a checksum kernel.
 *
 * A is n x p, B is p x m, C is n x m, all row-major heap arrays.
 * Mapping style: naive.  Each kernel maps every array it touches tofrom,
 * so A and B (read-only) are copied back to the host after every
 * repetition and C travels both ways each time.
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

    for (int r = 0; r < reps; ++r) {
        #pragma omp target teams distribute parallel for collapse(2) \
                map(tofrom: a[0:n*p], b[0:p*m], c[0:n*m])
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
    double sum = 0.0, trace = 0.0;
    int nd = n < m ? n : m;
    #pragma omp target map(tofrom: c[0:n*m], sum, trace)
    #pragma omp teams distribute parallel for reduction(+:sum, trace)
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
            sum += c[i * m + j];
            if (i == j && i < nd)
                trace += c[i * m + j];
        }
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
