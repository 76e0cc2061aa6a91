/*
 * lud.c -- right-looking LU decomposition without pivoting (after Rodinia's
 * lud): for every k one kernel scales column k below the diagonal, a second
 * one updates the trailing sub-matrix.  Before each step the host checks
 * that the pivot is not too small.  The result is verified on the host by
 * multiplying L and U back together.
 *
 * EXPERT mapping (enter/exit data: the loop has a return): the matrix stays on the device for the whole factorisation;
 * per step only the pivot element comes back for the host check, and the
 * factors come back once at the end.
 *
 * Usage: lud [matrix_dim]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIVOT_EPS 1.0e-10

static void create_matrix(double *m, int size)
{
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) {
            double v = ((i * 7 + j * 13) % 17) / 16.0;
            m[i * size + j] = i == j ? v + size : v;
        }
}

/* max |L*U - A| over the matrix */
static double verify(const double *lu, const double *a, int n)
{
    double err = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            int kmax = i < j ? i : j;
            for (int k = 0; k <= kmax; k++) {
                double l = k == i ? 1.0 : lu[i * n + k];
                sum += l * lu[k * n + j];
            }
            double d = fabs(sum - a[i * n + j]);
            if (d > err)
                err = d;
        }
    return err;
}

int main(int argc, char **argv)
{
    int matrix_dim = 160;
    if (argc > 1)
        matrix_dim = atoi(argv[1]);
    if (matrix_dim < 2) {
        fprintf(stderr, "usage: %s [matrix_dim>=2]\n", argv[0]);
        return 1;
    }
    size_t bytes = sizeof(double) * matrix_dim * matrix_dim;
    double *m = (double *)malloc(bytes);
    double *mm = (double *)malloc(bytes);
    if (m == NULL || mm == NULL) {
        fprintf(stderr, "cannot allocate the matrix\n");
        return 1;
    }
    create_matrix(m, matrix_dim);
    memcpy(mm, m, bytes);
    int size = matrix_dim;
    int total = size * size;

    printf("LU decomposition of a %d x %d matrix\n", size, size);
#pragma omp target enter data map(to: m[0:total])
    for (int k = 0; k < size - 1; k++) {
        if (k > 0) {
#pragma omp target update from(m[k * size + k:1])
        }
        double pivot = m[k * size + k];
        if (fabs(pivot) < PIVOT_EPS) {
            fprintf(stderr, "zero pivot at step %d\n", k);
#pragma omp target exit data map(delete: m[0:total])
            return 1;
        }
        if (k % 40 == 0)
            printf("step %4d pivot %.10f\n", k, pivot);
#pragma omp target teams distribute parallel for
        for (int i = k + 1; i < size; i++)
            m[i * size + k] /= m[k * size + k];

#pragma omp target teams distribute parallel for collapse(2)
        for (int i = k + 1; i < size; i++)
            for (int j = k + 1; j < size; j++)
                m[i * size + j] -= m[i * size + k] * m[k * size + j];
    }
#pragma omp target exit data map(from: m[0:total])
    printf("last pivot %.10f\n", m[total - 1]);

    double err = verify(m, mm, size);
    printf("max |LU - A| %s 1e-9\n", err < 1.0e-9 ? "<" : ">=");
    double trace = 0.0;
    for (int i = 0; i < size; i++)
        trace += m[i * size + i];
    printf("trace of U %.8f  L[n-1][0] %.10f\n", trace, m[(size - 1) * size]);
    free(m);
    free(mm);
    return 0;
}
