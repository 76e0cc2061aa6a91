/* Shared by every kernel file of this STREAM-style suite: the allocators and the clock live
 * here, as static inline functions, so each benchmark is one .c file plus report.c. */
#ifndef STREAM_COMMON_H
#define STREAM_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef STREAM_ALIGN
#define STREAM_ALIGN 64
#endif

/* Aligned storage of `bytes` bytes, NULL when the system has none. */
static inline void *stream_malloc(size_t bytes)
{
    void *ptr = NULL;
    int ret = posix_memalign(&ptr, STREAM_ALIGN, bytes);
    if (ret != 0)
        ptr = NULL;
    return ptr;
}

/* `n` doubles set to `value`; the run stops when there is no memory for them. */
static inline double *stream_doubles(size_t n, double value)
{
    double *p = malloc(n * sizeof(double));
    if (!p) {
        fprintf(stderr, "out of memory (%zu doubles)\n", n);
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = value;
    return p;
}

static inline double stream_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* report.c */
int stream_check(const double *a, const double *b, const double *c, size_t n, int ntimes,
                 double scalar, double dot);
void stream_rates(const double *seconds, size_t n, int ntimes);

#endif
