/*
 * main.c -- two grid levels: the coarse level is kept while the fine one, made by the same
 * helper, replaces it in the grid struct; the fine level relaxes toward the coefficients.
 *
 * Usage: levels [n] [steps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "grid.h"

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    Params P;
    P.steps = argc > 2 ? atoi(argv[2]) : 60;
    P.report = 20;
    P.dt = 0.5;
    P.nu = 0.1;

    table_build(NCOEF);
    Grid g = grid_make(n, 0.5);
    double *coarse = g.val;         /* the coarse level stays */
    g = grid_make(8 * n, 0.25);     /* the fine level takes its place */

    double t0 = now();
#pragma omp target data map(to: P, coarse[0:n]) map(tofrom: g.val[0:g.n])
    {
    double weight = 0.0;
    for (int step = 1; step <= P.steps; step++) {
        relax(&P, &g);
        weight += level_sum(coarse, n);
        if (step % P.report == 0)
            printf("step %3d: weight %.6f\n", step, weight);
    }
    }
    double t1 = now();

    printf("fine[1] %.9f fine[n/2] %.9f coarse[3] %.3f (%d points)\n", g.val[1],
           g.val[g.n / 2], coarse[3], g.n);
    fprintf(stderr, "time: %.3f s\n", t1 - t0);
    free(coarse);
    free(g.val);
    return 0;
}
