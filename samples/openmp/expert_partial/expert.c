/*
 * expert_partial.c -- EXPERT mapping (reference for s2s omp): the finished
 * version of the half-done port in expert_partial.c.
 *
 * Same program.  The outer `target data` region is kept (u in and out
 * once, src in once, tmp device-only).  The redundant per-kernel map
 * clauses are gone, `target update from(u)` runs only on the steps where
 * the host reads u (it sums all of it), and the needless `target update
 * to(src)` is gone: the host never changes src after the start.
 *
 * Usage: expert_partial [n] [steps] [monitor]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 10000, steps = 50, monitor = 10;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (argc > 3) monitor = atoi(argv[3]);
    if (n < 8 || steps < 1 || monitor < 1) {
        fprintf(stderr, "usage: %s [n>=8] [steps>=1] [monitor>=1]\n", argv[0]);
        return 1;
    }

    double *u = (double *)malloc((size_t)n * sizeof(double));
    double *src = (double *)malloc((size_t)n * sizeof(double));
    double *tmp = (double *)malloc((size_t)n * sizeof(double));
    if (!u || !src || !tmp) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        u[i] = (i > n / 4 && i < n / 2) ? 32.0 : 0.0;    /* a warm slab */
        src[i] = (i % 1000 == 500) ? 1.0 : 0.0;         /* point heaters */
    }

    #pragma omp target data map(tofrom: u[0:n]) map(to: src[0:n]) \
                            map(alloc: tmp[0:n])
    {
        for (int step = 1; step <= steps; ++step) {
            /* explicit Euler step, fixed u = 0 at both ends */
            #pragma omp target teams distribute parallel for
            for (int i = 0; i < n; ++i) {
                if (i == 0 || i == n - 1)
                    tmp[i] = 0.0;
                else
                    tmp[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + src[i];
            }

            #pragma omp target teams distribute parallel for
            for (int i = 0; i < n; ++i)
                u[i] = tmp[i];

            if (step % monitor == 0) {
                /* the host sums all of u: the whole array, but only now */
                #pragma omp target update from(u[0:n])
                double total = 0.0;
                for (int i = 0; i < n; ++i)
                    total += u[i];
                printf("step %3d  total heat %.6g  u[n/4] = %.6g  u[500] = %.6g\n",
                       step, total, u[n / 4], u[500]);
            }
        }
    }

    double umax = 0.0;
    int imax = 0;
    for (int i = 0; i < n; ++i)
        if (u[i] > umax) {
            umax = u[i];
            imax = i;
        }
    printf("expert_partial: n=%d steps=%d  max u = %.6g at i=%d  u[n/2] = %.6g\n",
           n, steps, umax, imax, u[n / 2]);

    free(u);
    free(src);
    free(tmp);
    return 0;
}
