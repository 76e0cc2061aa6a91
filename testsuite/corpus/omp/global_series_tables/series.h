/* series.h -- Chebyshev series whose coefficients live in a global table that
 * device routines read (set up once in coeffs.c, evaluated in eval.c). */
#ifndef SERIES_H
#define SERIES_H

#pragma omp declare target
extern double *cheb_coeffs;
double series_at(double x, int order);
#pragma omp end declare target

void coeffs_setup(int order, double decay);
double wall_seconds(void);

#endif
