/* kernels.c -- the device work: the fine level relaxes, the coarse level is weighed */
#include "grid.h"

void relax(const Params *P, Grid *g)
{
    const int n = g->n;
#pragma omp target teams distribute parallel for map(to: P[0:1], g->n, coef[0:NCOEF]) map(tofrom: g->val[0:n])
    for (int i = 1; i < n - 1; i++)
        g->val[i] += P->nu * P->dt * (coef_at(i) - g->val[i]);
}

double level_sum(const double *c, int n)
{
    double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: c[0:n], coef[0:NCOEF])
    for (int i = 0; i < n; i++)
        s += c[i] * coef_at(i);
    return s;
}
