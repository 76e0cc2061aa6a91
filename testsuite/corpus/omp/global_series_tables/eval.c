/* eval.c -- Clenshaw's recurrence over the global table, called on the device */
#include "series.h"

#pragma omp declare target
double series_at(double x, int order)
{
    double b1 = 0.0, b2 = 0.0;
    for (int k = order - 1; k >= 1; k--) {
        double b0 = 2.0 * x * b1 - b2 + cheb_coeffs[k];
        b2 = b1;
        b1 = b0;
    }
    return x * b1 - b2 + cheb_coeffs[0];
}
#pragma omp end declare target
