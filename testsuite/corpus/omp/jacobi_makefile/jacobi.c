/*
 * jacobi.c -- Jacobi relaxation for the 2-D Laplace equation (the classic
 * "jacobi" offload example): kernel one computes Anew and the largest
 * change (max reduction), kernel two copies Anew back into A; the host
 * tests the change for convergence after every iteration.
 *
 * Usage: jacobi [n] [m] [iter_max]   (build with make)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TOL 1.0e-5
#define OFFSET(j, i, m) ((j) * (m) + (i))

static void initialize(double *restrict A, double *restrict Anew, int m, int n)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            A[OFFSET(j, i, m)] = 0.0;
            Anew[OFFSET(j, i, m)] = 0.0;
        }
    for (int i = 0; i < m; i++) {
        A[OFFSET(0, i, m)] = 1.0;
        Anew[OFFSET(0, i, m)] = 1.0;
    }
}

static double calc_next(double *restrict A, double *restrict Anew, int m, int n)
{
    double error = 0.0;
    int size = m * n;
#pragma omp target teams distribute parallel for reduction(max: error) \
        map(to: A[0:size]) map(tofrom: Anew[0:size])
    for (int j = 1; j < n - 1; j++) {
        for (int i = 1; i < m - 1; i++) {
            Anew[OFFSET(j, i, m)] = 0.25 * (A[OFFSET(j, i + 1, m)] + A[OFFSET(j, i - 1, m)] +
                                            A[OFFSET(j - 1, i, m)] + A[OFFSET(j + 1, i, m)]);
            error = fmax(error, fabs(Anew[OFFSET(j, i, m)] - A[OFFSET(j, i, m)]));
        }
    }
    return error;
}

static void swap(double *restrict A, double *restrict Anew, int m, int n)
{
    int size = m * n;
#pragma omp target teams distribute parallel for map(to: Anew[0:size]) map(tofrom: A[0:size])
    for (int j = 1; j < n - 1; j++)
        for (int i = 1; i < m - 1; i++)
            A[OFFSET(j, i, m)] = Anew[OFFSET(j, i, m)];
}

int main(int argc, char **argv)
{
    int n = 128, m = 128, iter_max = 300;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) m = atoi(argv[2]);
    if (argc > 3) iter_max = atoi(argv[3]);
    if (n < 3 || m < 3 || iter_max < 1) {
        fprintf(stderr, "usage: %s [n] [m] [iter_max]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * m * sizeof(double);
    double *A = (double *)malloc(bytes);
    double *Anew = (double *)malloc(bytes);
    if (A == NULL || Anew == NULL) {
        fprintf(stderr, "allocation of %zu bytes failed\n", 2 * bytes);
        return 1;
    }
    initialize(A, Anew, m, n);

    printf("Jacobi relaxation Calculation: %d x %d mesh\n", n, m);
    double error = 1.0;
    int iter = 0;
    while (error > TOL && iter < iter_max) {
        error = calc_next(A, Anew, m, n);
        swap(A, Anew, m, n);
        if (iter % 50 == 0)
            printf("%5d, %0.6f\n", iter, error);
        iter++;
    }
    printf("%d iterations, final error %0.6e\n", iter, error);
    double sum = 0.0;
    for (int k = 0; k < n * m; k++)
        sum += A[k];
    printf("checksum %.10f  A[1][m/2] %.10f\n", sum, A[OFFSET(1, m / 2, m)]);
    free(A);
    free(Anew);
    return 0;
}
