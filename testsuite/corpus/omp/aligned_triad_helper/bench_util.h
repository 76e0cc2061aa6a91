/* Utilities shared by the kernels of this benchmark set: aligned allocation (the usual
 * posix_memalign wrapper, in bench_util.c) and a wall clock. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#ifndef BENCH_ALIGNMENT
#define BENCH_ALIGNMENT 64
#endif

/* bench_util.c: storage aligned to BENCH_ALIGNMENT bytes, NULL when it cannot be had */
void *bench_malloc(size_t bytes);

static inline double bench_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* validate.c */
int bench_validate(const double *a, size_t length, int iterations, double scalar);

#endif
