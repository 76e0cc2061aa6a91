/*
 * stencil_host_check.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as stencil_host_check.c.  Both buffers (halo ring included:
 * the boundary values live only on the host until then) go to the device
 * once; the pointer swap is harmless because both buffers stay mapped and
 * the kernels look them up by address.  Every `check_every` steps only the
 * residual scalar and the three probed elements of the new iterate come
 * back; at the end only the interior of the current `u` comes back (the
 * device never writes the halo ring, so the host copy of it is current).
 *
 * Usage: stencil_host_check [n] [steps] [check_every]
 */
#include <stdio.h>
#include <stdlib.h>

#define IDX(i, j) ((size_t)(i) * (size_t)ld + (size_t)(j))

static void set_boundary(double *g, int n, int ld)
{
    for (int j = 0; j < ld; ++j) {
        g[IDX(0, j)] = 64.0;         /* hot top wall      */
        g[IDX(n + 1, j)] = 0.0;      /* cold bottom wall  */
    }
    for (int i = 1; i <= n; ++i) {
        g[IDX(i, 0)] = 8.0;          /* warm left wall    */
        g[IDX(i, n + 1)] = 0.0;      /* cold right wall   */
    }
}

int main(int argc, char **argv)
{
    int n = 64, steps = 100, check_every = 10;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (argc > 3) check_every = atoi(argv[3]);
    if (n < 4 || steps < 1 || check_every < 1) {
        fprintf(stderr, "usage: %s [n>=4] [steps>=1] [check_every>=1]\n", argv[0]);
        return 1;
    }

    const int ld = n + 2;
    const size_t sz = (size_t)ld * (size_t)ld;
    double *u = (double *)malloc(sz * sizeof(double));
    double *unew = (double *)malloc(sz * sizeof(double));
    if (!u || !unew) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    for (size_t k = 0; k < sz; ++k)
        u[k] = unew[k] = 0.0;
    set_boundary(u, n, ld);
    set_boundary(unew, n, ld);

    int diverged = 0;
    #pragma omp target data map(to: u[0:sz], unew[0:sz])
    {
        for (int step = 1; step <= steps; ++step) {
            /* one Jacobi sweep: unew <- average of the four neighbours of u */
            #pragma omp target teams distribute parallel for collapse(2)
            for (int i = 1; i <= n; ++i)
                for (int j = 1; j <= n; ++j)
                    unew[IDX(i, j)] = 0.25 * (u[IDX(i - 1, j)] + u[IDX(i + 1, j)] +
                                              u[IDX(i, j - 1)] + u[IDX(i, j + 1)]);

            if (step % check_every == 0) {
                /* max-norm of the update (max is exact in any order) */
                double res = 0.0;
                #pragma omp target teams distribute parallel for collapse(2) \
                        reduction(max:res)
                for (int i = 1; i <= n; ++i)
                    for (int j = 1; j <= n; ++j) {
                        double d = unew[IDX(i, j)] - u[IDX(i, j)];
                        if (d < 0.0)
                            d = -d;
                        res = d > res ? d : res;
                    }

                /* host check of a few values of the new iterate */
                #pragma omp target update from(unew[IDX(n / 8, n / 2):1])
                #pragma omp target update from(unew[IDX(1, n / 2):1])
                #pragma omp target update from(unew[IDX(1, 1):1])
                double probe = unew[IDX(n / 8, n / 2)];
                double near_hot = unew[IDX(1, n / 2)];
                double corner = unew[IDX(1, 1)];
                printf("step %4d  residual %.6g  probe %.6g  near-hot %.6g  corner %.6g\n",
                       step, res, probe, near_hot, corner);
                if (!(res < 1.0e6)) {
                    fprintf(stderr, "diverged at step %d\n", step);
                    diverged = 1;     /* no return out of a target data region */
                    break;
                }
            }

            /* swap the buffers */
            double *tmp = u;
            u = unew;
            unew = tmp;
        }

        /* the interior of the current iterate, rows 1..n, columns 1..n */
        #pragma omp target update from(u[IDX(1, 1):IDX(n, n) - IDX(1, 1) + 1])
    }
    if (diverged)
        return 1;

    /* final summary on the host (serial sum: same order everywhere) */
    double heat = 0.0;
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= n; ++j)
            heat += u[IDX(i, j)];
    printf("n=%d steps=%d  interior heat %.6g  u[1][1] %.6g  u[n/4][3n/4] %.6g\n",
           n, steps, heat, u[IDX(1, 1)], u[IDX(n / 4, 3 * n / 4)]);

    free(u);
    free(unew);
    return 0;
}
