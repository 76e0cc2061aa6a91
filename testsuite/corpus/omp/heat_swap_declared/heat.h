/*
 * heat.h -- explicit 2-D heat equation solver: parameters and entry points.
 */
#ifndef HEAT_H
#define HEAT_H

typedef struct {
    int nx, ny;          /* grid points per direction (boundary included) */
    int max_steps;       /* upper bound on time steps */
    double alpha;        /* diffusion number, stable for alpha <= 0.25 */
    double tol;          /* stop when the largest change falls below tol */
} heat_params;

#define IDX(j, i, nx) ((j) * (nx) + (i))

void heat_init(const heat_params *p, double *u);
int heat_run(const heat_params *p, double *result, double *temp, double *last_delta);
double wall_seconds(void);

#endif
