/* expert_kernels.c -- (the expert's mapping: main's data region) the device work; parameters arrive through a pointer */
#include "heat.h"

void add_source(const Params *P, Field *F)
{
    int centre = F->n / 2;
#pragma omp target teams distribute parallel for
    for (int i = centre - 2; i <= centre + 2; i++)
        F->u[i] += P->source * P->dt;
}

void diffuse(const Params *P, Field *F)
{
#pragma omp target teams distribute parallel for
    for (int i = 1; i < F->n - 1; i++)
        F->un[i] = F->u[i] + P->alpha * P->dt * (F->u[i - 1] - 2.0 * F->u[i] + F->u[i + 1]);
}

void copy_back(Field *F)
{
#pragma omp target teams distribute parallel for
    for (int i = 1; i < F->n - 1; i++)
        F->u[i] = F->un[i];
}

double heat_total(const Field *F)
{
    double total = 0.0;
#pragma omp target teams distribute parallel for reduction(+: total)
    for (int i = 0; i < F->n; i++)
        total += F->u[i];
    return total;
}
