#include <math.h>
#include <stdio.h>

#include "stream_common.h"

/* The same recurrence on scalars: every element of an array holds the same value. */
int stream_check(const double *a, const double *b, const double *c, size_t n, int ntimes,
                 double scalar, double dot)
{
    double ai = 1.0, bi = 2.0, ci = 0.0;
    for (int k = 0; k < ntimes; k++) {
        ci = ai;
        bi = scalar * ci;
        ci = ai + bi;
        ai = bi + scalar * ci;
    }
    double ea = 0.0, eb = 0.0, ec = 0.0;
    for (size_t i = 0; i < n; i++) {
        ea += fabs(a[i] - ai);
        eb += fabs(b[i] - bi);
        ec += fabs(c[i] - ci);
    }
    double want_dot = ai * 0.5 * (double)n;
    printf("a = %.6f  b = %.6f  c = %.6f  dot = %.6f\n", a[0], b[0], c[0], dot);
    if (ea / n > 1e-12 || eb / n > 1e-12 || ec / n > 1e-12 || fabs(dot - want_dot) > 1e-8 * want_dot) {
        printf("Failed validation (errors %g %g %g)\n", ea, eb, ec);
        return 0;
    }
    printf("Solution validates\n");
    return 1;
}

void stream_rates(const double *seconds, size_t n, int ntimes)
{
    static const char *names[5] = {"Copy", "Scale", "Add", "Triad", "Dot"};
    static const int arrays[5] = {2, 2, 3, 3, 2};
    for (int k = 0; k < 5; k++) {
        double avg = seconds[k] / (ntimes - 1);
        double mb = 1e-6 * arrays[k] * sizeof(double) * (double)n;
        fprintf(stderr, "%-6s %12.1f MB/s  %.6f s\n", names[k], avg > 0 ? mb / avg : 0.0, avg);
    }
}
