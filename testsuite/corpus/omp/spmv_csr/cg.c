/*
 * cg.c -- conjugate gradient on a sparse symmetric positive definite matrix
 * in CSR format (row pointers, column indices, values), generated as a
 * 5-point Laplacian with a shifted diagonal.  Sizes come from the generated
 * matrix.  spmv, dot products and vector updates are separate kernels; the
 * host computes alpha/beta from the dot products every iteration.
 *
 * Usage: cg [grid] [iterations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int nrows, nnz;
    int *row_ptr;
    int *col_idx;
    double *vals;
} CSRMatrix;

static CSRMatrix *generate_matrix(int g)
{
    CSRMatrix *A = (CSRMatrix *)malloc(sizeof(CSRMatrix));
    A->nrows = g * g;
    A->row_ptr = (int *)malloc((A->nrows + 1) * sizeof(int));
    A->col_idx = (int *)malloc(5 * A->nrows * sizeof(int));
    A->vals = (double *)malloc(5 * A->nrows * sizeof(double));
    int k = 0;
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            int row = i * g + j;
            A->row_ptr[row] = k;
            if (i > 0) { A->col_idx[k] = row - g; A->vals[k++] = -1.0; }
            if (j > 0) { A->col_idx[k] = row - 1; A->vals[k++] = -1.0; }
            A->col_idx[k] = row; A->vals[k++] = 4.0 + (row % 5) * 0.25;
            if (j < g - 1) { A->col_idx[k] = row + 1; A->vals[k++] = -1.0; }
            if (i < g - 1) { A->col_idx[k] = row + g; A->vals[k++] = -1.0; }
        }
    A->row_ptr[A->nrows] = k;
    A->nnz = k;
    return A;
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: a[0:n], b[0:n])
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

int main(int argc, char **argv)
{
    int grid = 96, max_iter = 40;
    if (argc > 1) grid = atoi(argv[1]);
    if (argc > 2) max_iter = atoi(argv[2]);
    if (grid < 2 || max_iter < 1) {
        fprintf(stderr, "usage: %s [grid] [iterations]\n", argv[0]);
        return 1;
    }
    CSRMatrix *A = generate_matrix(grid);
    const int n = A->nrows, nnz = A->nnz;
    const int *row_ptr = A->row_ptr, *col_idx = A->col_idx;
    const double *vals = A->vals;
    size_t vbytes = n * sizeof(double);
    double *x = (double *)calloc(n, sizeof(double));
    double *r = (double *)malloc(vbytes);
    double *p = (double *)malloc(vbytes);
    double *Ap = (double *)malloc(vbytes);
    for (int i = 0; i < n; i++) {
        r[i] = 1.0 + (i % 3) * 0.5;   /* b, with x0 = 0 */
        p[i] = r[i];
    }
    printf("CG: %d rows, %d nonzeros\n", n, nnz);
    double rr = dot(r, r, n);
    const double rr0 = rr;
    int it;
    for (it = 1; it <= max_iter; it++) {
#pragma omp target teams distribute parallel for \
        map(to: row_ptr[0:n + 1], col_idx[0:nnz], vals[0:nnz], p[0:n]) map(from: Ap[0:n])
        for (int row = 0; row < n; row++) {
            double sum = 0.0;
            for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)
                sum += vals[k] * p[col_idx[k]];
            Ap[row] = sum;
        }
        double alpha = rr / dot(p, Ap, n);
#pragma omp target teams distribute parallel for \
        map(to: p[0:n], Ap[0:n]) map(tofrom: x[0:n], r[0:n])
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * Ap[i];
        }
        double rr_new = dot(r, r, n);
        double beta = rr_new / rr;
        rr = rr_new;
        if (it % 10 == 0)
            printf("iteration %3d  relative residual %.5e\n", it, sqrt(rr / rr0));
        if (sqrt(rr / rr0) < 1.0e-12)
            break;
#pragma omp target teams distribute parallel for map(to: r[0:n]) map(tofrom: p[0:n])
        for (int i = 0; i < n; i++)
            p[i] = r[i] + beta * p[i];
    }
    double xs = 0.0;
    for (int i = 0; i < n; i++)
        xs += x[i];
    printf("sum of x %.6f  x[0] %.6f  x[n/2] %.6f\n", xs, x[0], x[n / 2]);
    free(x); free(r); free(p); free(Ap);
    free(A->row_ptr); free(A->col_idx); free(A->vals); free(A);
    return 0;
}
