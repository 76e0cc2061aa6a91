/* Viscous Burgers' equation on a periodic-free 1-D line (fixed ends), explicit
 * upwind/central scheme, run until the solution settles or max_steps. */
#ifndef BURGERS_H
#define BURGERS_H

typedef struct {
    int cells;       /* grid points, ends included */
    int max_steps;
    double nu;       /* viscosity */
    double dt, dx;
    double settle;   /* stop when the largest change per step falls below it */
} burgers_params;

double burgers_clock(void);
void burgers_initial(const burgers_params *p, double *u);
int burgers_solve(const burgers_params *p, double *result, double *scratch, double *change);

#endif
