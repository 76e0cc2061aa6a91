/*
 * cg_convergence.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as cg_convergence.c.  All five vectors stay on the device
 * for the whole solve: x (zeros), r and p (both = b) go in once, b goes in
 * once for the final residual check, and Ap is device-only (the matvec
 * writes it before anything reads it).  Per iteration only the two
 * reduction scalars travel (tofrom: the reduction combines into their
 * host-set initial zero).  At the end only the max-norm scalar and the
 * three printed elements of x come back.
 *
 * The original program: conjugate gradients for the 2-D Poisson equation
 * (5-point Laplacian, zero Dirichlet boundary, matrix-free) on an m x m
 * grid.
 *
 * Every iteration has two device reductions whose results the host reads
 * at once: p.Ap gives the step length alpha, and the new r.r both drives
 * the convergence test of the host loop and gives beta.  alpha and beta go
 * back into the next kernels as plain scalars.  After convergence a last
 * kernel checks the true residual b - A x (max norm) and the host prints
 * three values of the solution.
 *
 * Usage: cg_convergence [m] [tol] [maxit]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int m = 80, maxit = 500;
    double tol = 1.0e-8;
    if (argc > 1) m = atoi(argv[1]);
    if (argc > 2) tol = atof(argv[2]);
    if (argc > 3) maxit = atoi(argv[3]);
    if (m < 4 || maxit < 1 || !(tol > 0.0)) {
        fprintf(stderr, "usage: %s [m>=4] [tol>0] [maxit>=1]\n", argv[0]);
        return 1;
    }
    const int n = m * m;

    double *x = (double *)malloc((size_t)n * sizeof(double));
    double *b = (double *)malloc((size_t)n * sizeof(double));
    double *r = (double *)malloc((size_t)n * sizeof(double));
    double *p = (double *)malloc((size_t)n * sizeof(double));
    double *Ap = (double *)malloc((size_t)n * sizeof(double));
    if (!x || !b || !r || !p || !Ap) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    /* right-hand side: two point sources and a weak background; x0 = 0 */
    double rr = 0.0;
    for (int k = 0; k < n; ++k) {
        int i = k / m, j = k % m;
        b[k] = 1.0 / 64.0 * ((i + 2 * j) % 5);
        if (i == m / 4 && j == m / 4) b[k] += 16.0;
        if (i == 3 * m / 4 && j == m / 2) b[k] -= 8.0;
        x[k] = 0.0;
        r[k] = b[k];
        p[k] = b[k];
        rr += r[k] * r[k];
    }
    const double rr0 = rr;

    int it;
    double rmax = 0.0;
    #pragma omp target data map(to: x[0:n], r[0:n], p[0:n], b[0:n]) map(alloc: Ap[0:n])
    {
        for (it = 1; it <= maxit; ++it) {
            /* Ap = A p */
            #pragma omp target teams distribute parallel for
            for (int k = 0; k < n; ++k) {
                int i = k / m, j = k % m;
                double s = 4.0 * p[k];
                if (i > 0) s -= p[k - m];
                if (i < m - 1) s -= p[k + m];
                if (j > 0) s -= p[k - 1];
                if (j < m - 1) s -= p[k + 1];
                Ap[k] = s;
            }

            double pAp = 0.0;
            #pragma omp target teams distribute parallel for reduction(+:pAp)
            for (int k = 0; k < n; ++k)
                pAp += p[k] * Ap[k];
            const double alpha = rr / pAp;

            /* x += alpha p, r -= alpha Ap, and the new r.r */
            double rr_new = 0.0;
            #pragma omp target teams distribute parallel for reduction(+:rr_new)
            for (int k = 0; k < n; ++k) {
                x[k] += alpha * p[k];
                r[k] -= alpha * Ap[k];
                rr_new += r[k] * r[k];
            }

            if (it % 20 == 0 || it == 1)
                printf("iter %4d  |r|/|r0| = %.4e  alpha = %.6e\n", it, sqrt(rr_new / rr0), alpha);
            if (sqrt(rr_new / rr0) < tol) {     /* host test on the device result */
                rr = rr_new;
                break;
            }

            const double beta = rr_new / rr;
            rr = rr_new;
            #pragma omp target teams distribute parallel for
            for (int k = 0; k < n; ++k)
                p[k] = r[k] + beta * p[k];
        }
        if (it > maxit)
            it = maxit;

        /* true residual b - A x, max norm */
        #pragma omp target teams distribute parallel for reduction(max:rmax)
        for (int k = 0; k < n; ++k) {
            int i = k / m, j = k % m;
            double s = b[k] - 4.0 * x[k];
            if (i > 0) s += x[k - m];
            if (i < m - 1) s += x[k + m];
            if (j > 0) s += x[k - 1];
            if (j < m - 1) s += x[k + 1];
            s = fabs(s);
            rmax = s > rmax ? s : rmax;
        }

        /* the three printed values of the solution */
        #pragma omp target update from(x[(m / 4) * m + m / 4:1])
        #pragma omp target update from(x[(m / 2) * m + m / 2:1])
        #pragma omp target update from(x[(3 * m / 4) * m + m / 2:1])
    }

    printf("cg_convergence: m=%d n=%d iterations=%d  |r|/|r0| = %.2e < tol: %s\n",
           m, n, it, sqrt(rr / rr0), sqrt(rr / rr0) < tol ? "yes" : "no");
    printf("true residual below 1e-6: %s\n", rmax < 1.0e-6 ? "yes" : "no");
    printf("x[src1] = %.6e  x[centre] = %.6e  x[src2] = %.6e\n",
           x[(m / 4) * m + m / 4], x[(m / 2) * m + m / 2], x[(3 * m / 4) * m + m / 2]);

    free(x);
    free(b);
    free(r);
    free(p);
    free(Ap);
    return 0;
}
