/*
 * grid.h -- fixed-width rows for the Poisson solver: the grid is an array of
 * rows (`row_t *`), each NX doubles wide, so kernels index it as phi[j][i].
 */
#ifndef GRID_H
#define GRID_H

#define NX 128
typedef double row_t[NX];

void set_source(double (*rhs)[NX], int ny, double h);
void sweep(row_t *phi, row_t *next, double (*rhs)[NX], int ny, double h2);
double residual(row_t *phi, double (*rhs)[NX], int ny, double h2);

#endif
