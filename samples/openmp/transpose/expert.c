/*
 * transpose.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as transpose.c.  One data region around the three kernels:
 * `in` and `weight` only go in; `out`, `colsum` and `wsum` are written on
 * the device before any device read, so they are never sent, and come back
 * once at the end because the host verifies every element of the transpose
 * and sums all of colsum and wsum.
 *
 * Usage: transpose [rows] [cols]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rows = 300, cols = 200;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    if (rows < 2 || cols < 2) {
        fprintf(stderr, "usage: %s [rows>=2] [cols>=2]\n", argv[0]);
        return 1;
    }
    const size_t nel = (size_t)rows * (size_t)cols;

    double *in = (double *)malloc(nel * sizeof(double));      /* rows x cols */
    double *out = (double *)malloc(nel * sizeof(double));     /* cols x rows */
    double *colsum = (double *)malloc((size_t)cols * sizeof(double));
    double *weight = (double *)malloc((size_t)rows * sizeof(double));
    double *wsum = (double *)malloc((size_t)cols * sizeof(double));
    if (!in || !out || !colsum || !weight || !wsum) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    for (int i = 0; i < rows; ++i) {
        weight[i] = 0.125 * (i % 8);
        for (int j = 0; j < cols; ++j)
            in[(size_t)i * cols + j] = (double)((i * 7 + j * 3) % 17) - 8.0;
    }

    #pragma omp target data map(to: in[0:nel], weight[0:rows]) \
                            map(from: out[0:nel], colsum[0:cols], wsum[0:cols])
    {
        /* out[j][i] = in[i][j] */
        #pragma omp target teams distribute parallel for collapse(2)
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                out[(size_t)j * rows + i] = in[(size_t)i * cols + j];

        /* row sums of the transpose: contiguous reads of `out` */
        #pragma omp target
        #pragma omp teams distribute parallel for
        for (int j = 0; j < cols; ++j) {
            double s = 0.0;
            for (int i = 0; i < rows; ++i)
                s += out[(size_t)j * rows + i];
            colsum[j] = s;
        }

        /* weighted row sums of the transpose */
        #pragma omp target teams distribute parallel for
        for (int j = 0; j < cols; ++j) {
            double s = 0.0;
            for (int i = 0; i < rows; ++i)
                s += weight[i] * out[(size_t)j * rows + i];
            wsum[j] = s;
        }
    }

    /* host verification of the transpose */
    long bad = 0;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            if (out[(size_t)j * rows + i] != in[(size_t)i * cols + j])
                ++bad;

    double total = 0.0, wtotal = 0.0;
    for (int j = 0; j < cols; ++j) {
        total += colsum[j];
        wtotal += wsum[j];
    }
    printf("transpose: rows=%d cols=%d mismatches=%ld\n", rows, cols, bad);
    printf("sum(colsum) = %.6g  sum(wsum) = %.6g\n", total, wtotal);
    for (int j = 0; j < cols; j += cols / 4)
        printf("colsum[%d] = %.6g  wsum[%d] = %.6g  out[%d][1] = %.6g\n",
               j, colsum[j], j, wsum[j], j, out[(size_t)j * rows + 1]);

    free(in);
    free(out);
    free(colsum);
    free(weight);
    free(wsum);
    return bad != 0;
}
