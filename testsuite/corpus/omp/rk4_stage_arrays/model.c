/* model.c -- initial state and a timer */
#include <math.h>
#include <time.h>
#include "model.h"

void init_state(double *x, double *v, int n)
{
    for (int i = 0; i < n; i++) {
        x[i] = sin(0.01 * i) + 0.1 * cos(0.37 * i);
        v[i] = 0.0;
    }
}

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
