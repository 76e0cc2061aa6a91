/*
 * main.c -- power iteration for the largest eigenvalue of a 1-D
 * variable-coefficient Laplacian.  The vectors are allocated here; the
 * kernels live in kernels.c.  The host reads the Rayleigh quotient and the
 * norm every iteration.
 *
 * Usage: power [n] [iterations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

#define DEFAULT_N 20000
#define DEFAULT_ITERS 60

static double *alloc_vector(int n)
{
    size_t bytes = (size_t)n * sizeof(double);
    double *v = (double *)malloc(bytes);
    if (v == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes\n", bytes);
        exit(EXIT_FAILURE);
    }
    return v;
}

int main(int argc, char **argv)
{
    int n = DEFAULT_N, iters = DEFAULT_ITERS;
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        iters = atoi(argv[2]);
    if (n < 3 || iters < 1) {
        fprintf(stderr, "usage: %s [n>=3] [iterations>=1]\n", argv[0]);
        return EXIT_FAILURE;
    }

    double *x = alloc_vector(n);
    double *y = alloc_vector(n);
    for (int i = 0; i < n; i++)
        x[i] = 1.0 + ((i * 17) % 13) / 16.0;

    double lambda = 0.0;
    double norm = sqrt(dot(n, x, x));
    scale(n, 1.0 / norm, x);
    for (int it = 1; it <= iters; it++) {
        laplace_apply(n, x, y);
        lambda = dot(n, x, y);
        norm = sqrt(dot(n, y, y));
        scale_copy(n, 1.0 / norm, y, x);
        if (it % 10 == 0)
            printf("iteration %3d  lambda %.8f  |Ax| %.8f\n", it, lambda, norm);
    }
    printf("estimate %.8f after %d iterations\n", lambda, iters);
    printf("x[0] %.8e  x[n/2] %.8e\n", x[0], x[n / 2]);
    free(x);
    free(y);
    return EXIT_SUCCESS;
}
