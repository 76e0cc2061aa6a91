/*
 * main.c -- evaluate a Chebyshev series at many points, several sweeps over
 * shifted sample points, with a checksum per sweep.
 *
 * Usage: series [npoints] [order] [sweeps]
 */
#include <stdio.h>
#include <stdlib.h>
#include "series.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int order = argc > 2 ? atoi(argv[2]) : 24;
    int sweeps = argc > 3 ? atoi(argv[3]) : 5;

    coeffs_setup(order, 0.35);

    double *xs = (double *)malloc(sizeof(double) * n);
    double *ys = (double *)malloc(sizeof(double) * n);
    if (xs == NULL || ys == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        xs[i] = -1.0 + 2.0 * (i + 0.5) / n;

    double t0 = wall_seconds();
    for (int s = 0; s < sweeps; s++) {
        double shift = 0.05 * s;
#pragma omp target teams distribute parallel for map(to: xs[0:n], cheb_coeffs[0:order]) map(from: ys[0:n])
        for (int i = 0; i < n; i++) {
            double x = xs[i] * (1.0 - shift);
            ys[i] = series_at(x, order);
        }
        double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: ys[0:n])
        for (int i = 0; i < n; i++)
            sum += ys[i] * ys[i];
        printf("sweep %d: shift %.2f, sum of squares %.10f\n", s, shift, sum);
    }
    double t1 = wall_seconds();

    printf("y[0] %.10f, y[n/2] %.10f\n", ys[0], ys[n / 2]);
    fprintf(stderr, "evaluation: %.3f s\n", t1 - t0);
    free(xs);
    free(ys);
    return 0;
}
