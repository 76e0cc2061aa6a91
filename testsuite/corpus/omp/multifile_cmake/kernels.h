/* kernels.h -- device kernels of the power-iteration solver */
#ifndef KERNELS_H
#define KERNELS_H

void laplace_apply(int n, const double *x, double *y);
double dot(int n, const double *x, const double *y);
void scale(int n, double s, double *x);
void scale_copy(int n, double s, const double *x, double *y);

#endif
