/*
 * reduction_host_loop.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as reduction_host_loop.c.  The vectors stay on the device
 * for the whole solve: b and the zero start vector x go in once, xnew is a
 * device-only temporary (written before it is read), and only the
 * reduction scalar err travels each iteration (the host tests it).  x comes
 * back once at the end for the host residual check; b never changed, so
 * the host copy is still good.
 *
 * Usage: reduction_host_loop [n] [tol] [maxit]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 20000, maxit = 200;
    double tol = 1.0e-6;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) tol = atof(argv[2]);
    if (argc > 3) maxit = atoi(argv[3]);
    if (n < 3 || maxit < 1 || !(tol > 0.0)) {
        fprintf(stderr, "usage: %s [n>=3] [tol>0] [maxit>=1]\n", argv[0]);
        return 1;
    }

    double *x = (double *)malloc((size_t)n * sizeof(double));
    double *xnew = (double *)malloc((size_t)n * sizeof(double));
    double *b = (double *)malloc((size_t)n * sizeof(double));
    if (!x || !xnew || !b) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        b[i] = (double)((i % 11) - 5);
        x[i] = 0.0;
        xnew[i] = 0.0;
    }

    int it = 0;
    double err = 0.0;
    #pragma omp target data map(tofrom: x[0:n]) map(to: b[0:n]) map(alloc: xnew[0:n])
    for (it = 1; it <= maxit; ++it) {
        err = 0.0;
        #pragma omp target map(tofrom: err)
        #pragma omp teams distribute parallel for reduction(+:err)
        for (int i = 0; i < n; ++i) {
            double left = i > 0 ? x[i - 1] : 0.0;
            double right = i < n - 1 ? x[i + 1] : 0.0;
            xnew[i] = 0.25 * (b[i] - left - right);
            double d = xnew[i] - x[i];
            err += d < 0.0 ? -d : d;
        }

        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i)
            x[i] = xnew[i];

        if (it % 5 == 0 || it == 1)
            printf("iter %3d  err = %.6g\n", it, err);
        if (err < tol)       /* host decision on the device-computed scalar */
            break;
    }

    if (it > maxit) {
        printf("no convergence after %d iterations (err = %.6g)\n", maxit, err);
        it = maxit;
    } else {
        printf("converged after %d iterations (err = %.6g < tol = %g)\n", it, err, tol);
    }

    /* residual check on the host */
    double rmax = 0.0;
    for (int i = 0; i < n; ++i) {
        double r = b[i] - 4.0 * x[i] - (i > 0 ? x[i - 1] : 0.0) - (i < n - 1 ? x[i + 1] : 0.0);
        if (r < 0.0) r = -r;
        if (r > rmax) rmax = r;
    }
    printf("n=%d  max residual < 1e-5: %s  x[0] = %.6g  x[5] = %.6g  x[n-1] = %.6g\n",
           n, rmax < 1.0e-5 ? "yes" : "no", x[0], x[5], x[n - 1]);

    free(x);
    free(xnew);
    free(b);
    return 0;
}
