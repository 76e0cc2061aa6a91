/* kernels.c -- the target regions of the power-iteration solver.  Each
 * kernel maps what it touches, so it can be called from anywhere. */
#include "kernels.h"

/* y = A x for the 1-D Laplacian with a variable coefficient */
void laplace_apply(int n, const double *x, double *y)
{
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n])
    for (int i = 0; i < n; i++) {
        double c = 2.0 + (i % 7) * 0.25;
        double left = i > 0 ? x[i - 1] : 0.0;
        double right = i < n - 1 ? x[i + 1] : 0.0;
        y[i] = c * x[i] - left - right;
    }
}

double dot(int n, const double *x, const double *y)
{
    double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: x[0:n], y[0:n])
    for (int i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

void scale(int n, double s, double *x)
{
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
    for (int i = 0; i < n; i++)
        x[i] *= s;
}

void scale_copy(int n, double s, const double *x, double *y)
{
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n])
    for (int i = 0; i < n; i++)
        y[i] = s * x[i];
}
