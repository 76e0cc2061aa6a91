/*
 * branch_kernels.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as branch_kernels.c.  v, w and hist stay on the device for
 * the whole iteration loop; each iteration only the reduction scalar vmax
 * travels (the host branches on it).  v and hist come back at the end (the
 * host sums all of both); w is never read on the host again, so it only
 * goes in.
 *
 * Each iteration measures max(v) on the device; the host compares it with a
 * limit given on the command line and launches EITHER a "rescale" region
 * (target + parallel for) OR a "grow" region (combined construct).  A third
 * region, executed on both paths, accumulates v into a running history.
 *
 * Usage: branch_kernels [n] [iters] [limit]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 5000, iters = 16;
    double limit = 12.0;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) iters = atoi(argv[2]);
    if (argc > 3) limit = atof(argv[3]);
    if (n < 16 || iters < 1) {
        fprintf(stderr, "usage: %s [n>=16] [iters>=1] [limit]\n", argv[0]);
        return 1;
    }

    double *v = (double *)malloc((size_t)n * sizeof(double));
    double *w = (double *)malloc((size_t)n * sizeof(double));
    double *hist = (double *)malloc((size_t)n * sizeof(double));
    if (!v || !w || !hist) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        v[i] = (double)(i % 9);
        w[i] = 0.125 * ((i * 5) % 11);
        hist[i] = 0.0;
    }

    int n_rescale = 0, n_grow = 0;
    #pragma omp target data map(tofrom: v[0:n], hist[0:n]) map(to: w[0:n])
    for (int it = 0; it < iters; ++it) {
        double vmax = 0.0;
        #pragma omp target teams distribute parallel for reduction(max:vmax)
        for (int i = 0; i < n; ++i)
            vmax = v[i] > vmax ? v[i] : vmax;

        const char *what;
        if (vmax > limit) {
            /* too large: halve everything (and shift w a little) */
            #pragma omp target
            #pragma omp parallel for
            for (int i = 0; i < n; ++i) {
                v[i] = 0.5 * v[i];
                w[i] = w[i] + 0.0625;
            }
            what = "rescale";
            ++n_rescale;
        } else {
            /* still small: grow by w */
            #pragma omp target teams distribute parallel for
            for (int i = 0; i < n; ++i)
                v[i] = v[i] + w[i];
            what = "grow";
            ++n_grow;
        }

        /* third region on both paths: running history */
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i)
            hist[i] += v[i];

        printf("iter %2d  max(v) = %-8.6g -> %s\n", it, vmax, what);
    }

    double sv = 0.0, sh = 0.0;
    for (int i = 0; i < n; ++i) {
        sv += v[i];
        sh += hist[i];
    }
    printf("rescale %d times, grow %d times\n", n_rescale, n_grow);
    printf("sum(v) = %.6g  sum(hist) = %.6g  v[7] = %.6g  hist[n-1] = %.6g\n",
           sv, sh, v[7], hist[n - 1]);

    free(v);
    free(w);
    free(hist);
    return 0;
}
