#ifndef GRID_H
#define GRID_H

#include <stddef.h>

#define IDX(i, j, ny) ((size_t)(i) * (size_t)(ny) + (size_t)(j))

/* grid.c */
double *grid_alloc(int nx, int ny);
void grid_init(double *u, int nx, int ny);
double grid_checksum(const double *u, int nx, int ny);

#endif
