/* filters.c -- weighted stencils accumulated into dst over the interior of an n x n grid.
 * Each sweep leaves a band of its radius untouched on every side. */
#include <stdio.h>
#include <stdlib.h>
#include "filters.h"

void unknown_filter(int n, const double *restrict src, double *restrict dst)
{
    fprintf(stderr, "no such filter (grid %d, buffers %p %p)\n", n, (const void *)src,
            (void *)dst);
    exit(2);
}

void star1(int n, const double *restrict src, double *restrict dst)
{
    #pragma omp target teams distribute parallel for collapse(2) map(to: src[0:n*n]) map(tofrom: dst[0:n*n])
    for (int i = 1; i < n - 1; i++) {
        for (int j = 1; j < n - 1; j++) {
            dst[i * n + j] += 0.5 * (src[(i + 1) * n + j] - src[(i - 1) * n + j])
                            + 0.5 * (src[i * n + j + 1] - src[i * n + j - 1]);
        }
    }
}

void star2(int n, const double *restrict src, double *restrict dst)
{
    #pragma omp target teams distribute parallel for collapse(2) map(to: src[0:n*n]) map(tofrom: dst[0:n*n])
    for (int i = 2; i < n - 2; i++) {
        for (int j = 2; j < n - 2; j++) {
            dst[i * n + j] += 0.25 * (src[(i + 1) * n + j] - src[(i - 1) * n + j])
                            + 0.25 * (src[i * n + j + 1] - src[i * n + j - 1])
                            + 0.125 * (src[(i + 2) * n + j] - src[(i - 2) * n + j])
                            + 0.125 * (src[i * n + j + 2] - src[i * n + j - 2]);
        }
    }
}

void box1(int n, const double *restrict src, double *restrict dst)
{
    #pragma omp target teams distribute parallel for collapse(2) map(to: src[0:n*n]) map(tofrom: dst[0:n*n])
    for (int i = 1; i < n - 1; i++) {
        for (int j = 1; j < n - 1; j++) {
            double s = 0.0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++)
                    s += (di + dj) * src[(i + di) * n + j + dj];
            dst[i * n + j] += s / 6.0;
        }
    }
}
