/*
 * heat.c -- explicit heat diffusion on the device.  Two buffers: the step
 * reads `t` and writes `r`; the pointers are declared inside the data region
 * (`double *r = result, *t = temp;`) and swapped after every step, as in
 * most public stencil codes; the kernels carry no map clause of their own
 * (the buffers they alias are present).  The largest change comes back to
 * the host each step (max reduction) for the convergence test.
 */
#include <math.h>
#include <string.h>
#include <sys/time.h>

#include "heat.h"

double wall_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}

void heat_init(const heat_params *p, double *u)
{
    const int nx = p->nx, ny = p->ny;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            u[IDX(j, i, nx)] = 0.0;
    for (int i = 0; i < nx; i++)                 /* hot top edge */
        u[IDX(0, i, nx)] = 100.0 * sin(3.14159265358979 * i / (nx - 1));
    for (int j = 0; j < ny; j++)                 /* warm left edge */
        u[IDX(j, 0, nx)] = 25.0;
}

int heat_run(const heat_params *p, double *result, double *temp, double *last_delta)
{
    const int nx = p->nx, ny = p->ny, n = nx * ny;
    const double alpha = p->alpha;
    double delta = 0.0;
    int step;

    /* both buffers live on the device for the whole run; the kernels reach
       them through r and t, which the target data finds present */
    #pragma omp target data map(to: result[0:n], temp[0:n])
    {
        double *r = result, *t = temp;
        for (step = 0; step < p->max_steps; step++) {
            #pragma omp target teams distribute parallel for collapse(2)
            for (int j = 1; j < ny - 1; j++)
                for (int i = 1; i < nx - 1; i++)
                    r[IDX(j, i, nx)] = t[IDX(j, i, nx)] + alpha *
                        (t[IDX(j - 1, i, nx)] + t[IDX(j + 1, i, nx)] +
                         t[IDX(j, i - 1, nx)] + t[IDX(j, i + 1, nx)] - 4.0 * t[IDX(j, i, nx)]);

            delta = 0.0;
            #pragma omp target teams distribute parallel for reduction(max: delta)
            for (int k = 0; k < n; k++) {
                double d = fabs(r[k] - t[k]);
                if (d > delta)
                    delta = d;
            }

            double *swap = t;
            t = r;
            r = swap;
            if (delta < p->tol) {
                step++;
                break;
            }
        }
        /* t holds the newest values */
        #pragma omp target update from(t[0:n])
        if (t != result)
            memcpy(result, t, (size_t)n * sizeof(double));
    }
    *last_delta = delta;
    return step;
}
