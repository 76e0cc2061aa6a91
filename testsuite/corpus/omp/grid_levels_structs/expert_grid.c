/* grid.c -- storage of the grid levels and of the coefficient table */
#include <stdio.h>
#include <stdlib.h>
#include "grid.h"

#pragma omp declare target
double *coef;
double coef_at(int k) { return coef[k % NCOEF]; }
#pragma omp end declare target

Grid grid_make(int n, double scale)
{
    Grid g;
    g.n = n;
    g.val = (double *)malloc(sizeof(double) * g.n);
    if (g.val == NULL) {
        fprintf(stderr, "grid_make(%d): out of memory\n", n);
        exit(1);
    }
    for (int i = 0; i < g.n; i++)
        g.val[i] = scale * ((i * 7) % 23);
    return g;
}

void table_build(int size)
{
    coef = (double *)malloc(sizeof(double) * size);
    for (int k = 0; k < size; k++)
        coef[k] = 1.0 / (1.0 + k);
#pragma omp target enter data map(to: coef[0:size])
    printf("table: %d coefficients\n", size);
}
