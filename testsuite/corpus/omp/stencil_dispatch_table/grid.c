/* grid.c -- allocation and timing helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "filters.h"

double *grid_alloc(int n, const char *what)
{
    double *p = (double *)malloc((size_t)n * n * sizeof(double));
    if (p == NULL) {
        fprintf(stderr, "stencil: cannot allocate %s (%d x %d)\n", what, n, n);
        exit(1);
    }
    return p;
}

double now_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, 0);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}
