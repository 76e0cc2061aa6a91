/* grid.h -- a 1-D grid at two levels, the run's parameters and a coefficient table */
#ifndef GRID_H
#define GRID_H

typedef struct {
    int n;          /* points */
    double *val;    /* values */
} Grid;

typedef struct {
    int steps;      /* time steps */
    int report;     /* print every `report` steps */
    double dt;      /* time step */
    double nu;      /* diffusion number */
} Params;

#define NCOEF 16

/* the coefficient table: filled on the host once, read by a device routine */
#pragma omp declare target
extern double *coef;
double coef_at(int k);
#pragma omp end declare target

Grid grid_make(int n, double scale);
void table_build(int size);

void relax(const Params *P, Grid *g);
double level_sum(const double *c, int n);

#endif
