/*
 * called_functions.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as called_functions.c.  The helpers no longer map anything:
 * main keeps u, v, f and g on the device around the whole time loop and the
 * final axpy/dot, so every helper kernel finds its vectors present.  Only
 * the dot-product reduction scalars travel during the run, and at the end
 * only the four printed elements come back.
 *
 * Usage: called_functions [n] [steps]
 */
#include <stdio.h>
#include <stdlib.h>

/* y <- a*x + y   (x, y present on the device) */
static void axpy(int n, double a, double *x, double *y)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i)
        y[i] = a * x[i] + y[i];
}

/* x <- s*x   (x present on the device) */
static void scale(int n, double s, double *x)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i)
        x[i] = s * x[i];
}

/* returns x . y   (x, y present on the device) */
static double dot(int n, double *x, double *y)
{
    double s = 0.0;
    #pragma omp target teams distribute parallel for reduction(+:s)
    for (int i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

/* one step of a toy two-field update:  u += f/2 ;  v = v/2 + u */
static void time_step(int n, double *u, double *v, double *f)
{
    axpy(n, 0.5, f, u);       /* call site 1 of axpy */
    scale(n, 0.5, v);
    axpy(n, 1.0, u, v);       /* call site 2 of axpy */
}

int main(int argc, char **argv)
{
    int n = 4096, steps = 10;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (n < 8 || steps < 1) {
        fprintf(stderr, "usage: %s [n>=8] [steps>=1]\n", argv[0]);
        return 1;
    }

    double *u = (double *)malloc((size_t)n * sizeof(double));
    double *v = (double *)malloc((size_t)n * sizeof(double));
    double *f = (double *)malloc((size_t)n * sizeof(double));
    double *g = (double *)malloc((size_t)n * sizeof(double));
    if (!u || !v || !f || !g) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        u[i] = (double)(i % 5);
        v[i] = 0.0;
        f[i] = (double)((i % 3) - 1);
        g[i] = 1.0;
    }

    double sum_g;
    #pragma omp target data map(to: u[0:n], v[0:n], f[0:n], g[0:n])
    {
        for (int s = 0; s < steps; ++s) {
            time_step(n, u, v, f);
            if (s % 5 == 4)
                printf("step %2d  u.v = %.6g  |v|^2 = %.6g\n", s, dot(n, u, v), dot(n, v, v));
        }

        /* main calls the shared helper directly too (call site 3 of axpy) */
        axpy(n, -1.0, u, g);
        sum_g = dot(n, g, g);

        /* only the elements printed below */
        #pragma omp target update from(u[1:1], g[4:1])
        #pragma omp target update from(v[1:1])
        #pragma omp target update from(v[n - 1:1])
    }

    printf("called_functions: n=%d steps=%d\n", n, steps);
    printf("g.g = %.6g  u[1] = %.6g  v[1] = %.6g  v[n-1] = %.6g  g[4] = %.6g\n",
           sum_g, u[1], v[1], v[n - 1], g[4]);

    free(u);
    free(v);
    free(f);
    free(g);
    return 0;
}
