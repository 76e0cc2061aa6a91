/*
 * burgers.c -- the time loop.  The step reads `u` and writes `un` (the fixed
 * ends too); both names are declared here from the caller's buffers and
 * swapped after every step, so after the loop either buffer may hold the
 * newest values.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "burgers.h"

double burgers_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void burgers_initial(const burgers_params *p, double *u)
{
    const int n = p->cells;
    for (int i = 0; i < n; i++) {
        double x = i * p->dx;
        u[i] = (x > 0.2 && x < 0.5) ? 1.0 + 0.5 * sin(10.0 * x) : 0.1;
    }
}

int burgers_solve(const burgers_params *p, double *result, double *scratch, double *change)
{
    const int n = p->cells;
    const double c = p->dt / p->dx, d = p->nu * p->dt / (p->dx * p->dx);
    double *u = result, *un = scratch;
    double biggest = 0.0;
    int step;

    for (step = 0; step < p->max_steps; step++) {
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(from: un[0:n])
        for (int i = 0; i < n; i++) {
            if (i == 0 || i == n - 1) {     /* fixed ends */
                un[i] = u[i];
                continue;
            }
            double adv = u[i] > 0.0 ? u[i] * (u[i] - u[i - 1]) : u[i] * (u[i + 1] - u[i]);
            un[i] = u[i] - c * adv + d * (u[i + 1] - 2.0 * u[i] + u[i - 1]);
        }

        biggest = 0.0;
#pragma omp target teams distribute parallel for reduction(max: biggest) \
        map(to: u[0:n], un[0:n])
        for (int i = 0; i < n; i++) {
            double delta = fabs(un[i] - u[i]);
            if (delta > biggest)
                biggest = delta;
        }

        double *keep = u;
        u = un;
        un = keep;
        if (biggest < p->settle) {
            step++;
            break;
        }
    }
    /* u holds the newest values; the caller reads result */
    if (u != result)
        memcpy(result, u, (size_t)n * sizeof(double));
    *change = biggest;
    return step;
}
