/*
 * shared_kernel_callsites.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as shared_kernel_callsites.c.  One data region covers both
 * call sites of blend(), whose kernel no longer maps anything: w goes in
 * once for both calls, v goes in once before call site A and u is
 * device-only (the relaxation kernel writes all of it before blend reads
 * it).  After call site A the whole of v comes back (the host sums it) and
 * only the two pinned end points go in again.  In the loop only v[n/2]
 * comes back every 10 iterations; at the end only the interior v[1:n-2]
 * comes back, because the device never writes v's end points after the
 * host pinned them.
 *
 * The original program: one helper containing a kernel, called from two
 * call sites where the data are in different states.
 *
 *   blend(v, w, n, s):  v[i] = s * v[i] + w[i]      (the shared kernel)
 *
 * Call site A (calibration): v was just filled on the host, and the host
 * needs ALL of the result right away (it sums it and pins the two end
 * points of v before the main loop).
 * Call site B (inside the relaxation loop): blend works on the scratch
 * buffer u, which only ever lives on the device; the host does not look
 * at it.  The host prints one element of v every 10 iterations and the
 * whole of v at the end.
 *
 * All coefficients are powers of two, so every product is exact and the
 * results do not depend on FMA contraction; the sums are done serially on
 * the host.
 *
 * Usage: shared_kernel_callsites [n] [iters]
 */
#include <stdio.h>
#include <stdlib.h>

/* the shared kernel: v and w are present on the device at both call sites */
static void blend(double *v, double *w, int n, double s)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i)
        v[i] = s * v[i] + w[i];
}

int main(int argc, char **argv)
{
    int n = 30000, iters = 40;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) iters = atoi(argv[2]);
    if (n < 8 || iters < 1) {
        fprintf(stderr, "usage: %s [n>=8] [iters>=1]\n", argv[0]);
        return 1;
    }

    double *v = (double *)malloc((size_t)n * sizeof(double));
    double *w = (double *)malloc((size_t)n * sizeof(double));
    double *u = (double *)malloc((size_t)n * sizeof(double));
    if (!v || !w || !u) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        v[i] = (double)((i * 11) % 32) - 16.0;
        w[i] = 0.125 * (i % 5);
        u[i] = 0.0;
    }

    #pragma omp target data map(to: v[0:n], w[0:n]) map(alloc: u[0:n])
    {
        /* calibration: call site A, the host needs the whole result */
        blend(v, w, n, 0.5);
        #pragma omp target update from(v[0:n])
        double total = 0.0;
        for (int i = 0; i < n; ++i)
            total += v[i];
        printf("calibrated: sum(v) = %.6f\n", total);
        v[0] = 8.0;                  /* pin the end points */
        v[n - 1] = -8.0;
        #pragma omp target update to(v[0:1])
        #pragma omp target update to(v[n - 1:1])

        for (int it = 1; it <= iters; ++it) {
            /* relaxation into the scratch buffer (end points copied) */
            #pragma omp target teams distribute parallel for
            for (int i = 0; i < n; ++i)
                u[i] = (i == 0 || i == n - 1) ? v[i] : 0.25 * (v[i - 1] + 2.0 * v[i] + v[i + 1]);

            /* call site B: u lives on the device only */
            blend(u, w, n, 0.25);

            /* back into v, interior only: the pinned end points stay */
            #pragma omp target teams distribute parallel for
            for (int i = 1; i < n - 1; ++i)
                v[i] = u[i];

            if (it % 10 == 0) {
                #pragma omp target update from(v[n / 2:1])
                printf("iter %3d  v[n/2] = %.6f\n", it, v[n / 2]);
            }
        }

        /* v[0] and v[n-1] were last written by the host */
        #pragma omp target update from(v[1:n-2])
    }

    double s1 = 0.0, s2 = 0.0;
    for (int i = 0; i < n; ++i) {
        s1 += v[i];
        s2 += v[i] * v[i];
    }
    printf("shared_kernel_callsites: n=%d iters=%d\n", n, iters);
    printf("sum(v) = %.6f  sum(v^2) = %.6f  v[0] = %g  v[1] = %.6f  v[n-2] = %.6f  v[n-1] = %g\n",
           s1, s2, v[0], v[1], v[n - 2], v[n - 1]);

    free(v);
    free(w);
    free(u);
    return 0;
}
