#include <math.h>
#include <stdio.h>

#include "bench_util.h"

/* The host recurrence of the triad: a = a + b + scalar * c with b = 2, c = 2, a = 0. */
int bench_validate(const double *a, size_t length, int iterations, double scalar)
{
    double ar = 0.0, br = 2.0, cr = 2.0;
    for (int k = 0; k <= iterations; k++)
        ar += br + scalar * cr;
    ar *= (double)length;
    double asum = 0.0;
    for (size_t j = 0; j < length; j++)
        asum += fabs(a[j]);
    double epsilon = 1.e-8;
    if (fabs(ar - asum) / asum > epsilon) {
        printf("Failed Validation on output array\n       Expected checksum: %f\n       "
               "Observed checksum: %f\n", ar, asum);
        return 0;
    }
    printf("Solution validates\n");
    return 1;
}
