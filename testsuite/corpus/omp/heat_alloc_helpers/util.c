/* util.c -- checked allocations as the solver's authors wrote them */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "util.h"

double *alloc_field(size_t count, double value)
{
    double *p = (double *)malloc(count * sizeof(double));
    if (!p) {
        fprintf(stderr, "alloc_field: cannot allocate %zu doubles\n", count);
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        p[i] = value;
    return p;
}

int *alloc_mask(size_t count)
{
    int *m = malloc(count * sizeof *m);
    if (m == NULL) {
        perror("alloc_mask");
        exit(EXIT_FAILURE);
    }
    for (size_t i = 0; i < count; i++)
        m[i] = 0;
    return m;
}

double get_time(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
