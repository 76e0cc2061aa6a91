/* expert_coeffs.c -- (the expert's mapping) the global coefficient table: allocated and filled on the device */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <sys/time.h>
#include "series.h"

#pragma omp declare target
double *cheb_coeffs;
#pragma omp end declare target

double wall_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

void coeffs_setup(int order, double decay)
{
    cheb_coeffs = (double *)malloc(sizeof(double) * order);
    /* the table stays on the device for the rest of the run: routines read it there */
#pragma omp target enter data map(alloc: cheb_coeffs[0:order])
#pragma omp target teams distribute parallel for
    for (int k = 0; k < order; k++) {
        double sign = (k % 2 == 0) ? 1.0 : -1.0;
        cheb_coeffs[k] = sign * exp(-decay * k) / (1.0 + k);
    }
}
