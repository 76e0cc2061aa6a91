/* main.c -- apply a stencil picked at run time to a grid that the driver refreshes
 * between sweeps, then report the L1 norm of the accumulated result.
 *
 * Usage: stencil [n] [iterations] [filter: 1 = star1, 2 = star2, 3 = box1]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "filters.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int iterations = argc > 2 ? atoi(argv[2]) : 20;
    int kind = argc > 3 ? atoi(argv[3]) : 2;
    if (n < 8 || iterations < 1) {
        fprintf(stderr, "usage: %s [n >= 8] [iterations >= 1] [filter]\n", argv[0]);
        return 1;
    }

    sweep_fn sweep = unknown_filter;
    int radius = 0;
    switch (kind) {
    case 1: sweep = star1; radius = 1; break;
    case 2: sweep = star2; radius = 2; break;
    case 3: sweep = box1; radius = 1; break;
    default: break;
    }
    printf("grid %d x %d, %d sweeps of filter %d (radius %d)\n", n, n, iterations, kind,
           radius);

    double *in = grid_alloc(n, "input");
    double *out = grid_alloc(n, "output");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            in[i * n + j] = (double)(i + j);
            out[i * n + j] = 0.0;
        }

    double t0 = now_seconds();
    for (int iter = 0; iter < iterations; iter++) {
        sweep(n, in, out);
        #pragma omp target teams distribute parallel for collapse(2) map(tofrom: in[0:n*n])
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                in[i * n + j] += 1.0;
    }
    double elapsed = now_seconds() - t0;

    double norm = 0.0;
    for (int i = radius; i < n - radius; i++)
        for (int j = radius; j < n - radius; j++)
            norm += fabs(out[i * n + j]);
    norm /= (double)(n - 2 * radius) * (n - 2 * radius);
    printf("L1 norm of the interior: %.10f\n", norm);
    printf("corner %.3f, centre %.6f\n", out[radius * n + radius], out[(n / 2) * n + n / 2]);
    fprintf(stderr, "stencil: %.3f s per sweep\n", elapsed / iterations);
    free(in);
    free(out);
    return 0;
}
