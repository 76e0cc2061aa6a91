/* setup.c -- parameters and the field's storage (checked allocations) */
#include <stdio.h>
#include <stdlib.h>
#include "heat.h"

static double *alloc_doubles(int count)
{
    double *p = (double *)malloc(sizeof(double) * count);
    if (p == NULL) {
        fprintf(stderr, "alloc_doubles(%d) failed\n", count);
        exit(1);
    }
    return p;
}

void params_init(Params *P, int nx, int steps)
{
    P->nx = nx;
    P->steps = steps;
    P->report = 25;
    P->alpha = 0.8;
    P->dt = 0.25;
    P->source = 2.0;
}

void field_init(Field *F, const Params *P)
{
    F->n = P->nx + 2;
    F->u = alloc_doubles(F->n);
    F->un = alloc_doubles(F->n);
    for (int i = 0; i < F->n; i++) {
        F->u[i] = (i % 13) * 0.1;
        F->un[i] = 0.0;
    }
    F->u[0] = F->u[F->n - 1] = 0.0;
}

void field_free(Field *F)
{
    free(F->u);
    free(F->un);
}
