/*
 * poisson.c -- Jacobi sweeps for -lap(phi) = rhs on an NX x ny grid of rows.
 * Each sweep writes the interior of `next` from `phi`, then copies it back;
 * the residual is a sum reduction the host reads every few sweeps.
 */
#include <math.h>

#include "grid.h"

void set_source(double (*rhs)[NX], int ny, double h)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < NX; i++) {
            double x = i * h, y = j * h;
            rhs[j][i] = 8.0 * exp(-40.0 * ((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)));
        }
}

void sweep(row_t *phi, row_t *next, double (*rhs)[NX], int ny, double h2)
{
    #pragma omp target teams distribute parallel for collapse(2) \
        map(to: phi[0:ny], rhs[0:ny]) map(tofrom: next[0:ny])
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < NX - 1; i++)
            next[j][i] = 0.25 * (phi[j - 1][i] + phi[j + 1][i] + phi[j][i - 1] +
                                 phi[j][i + 1] + h2 * rhs[j][i]);

    #pragma omp target teams distribute parallel for collapse(2) \
        map(to: next[0:ny]) map(tofrom: phi[0:ny])
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < NX - 1; i++)
            phi[j][i] = next[j][i];
}

double residual(row_t *phi, double (*rhs)[NX], int ny, double h2)
{
    double sum = 0.0;
    #pragma omp target teams distribute parallel for collapse(2) reduction(+: sum) \
        map(to: phi[0:ny], rhs[0:ny])
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < NX - 1; i++) {
            double r = h2 * rhs[j][i] - (4.0 * phi[j][i] - phi[j - 1][i] - phi[j + 1][i] -
                                         phi[j][i - 1] - phi[j][i + 1]);
            sum += r * r;
        }
    return sqrt(sum);
}
