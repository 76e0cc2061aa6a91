/* wave.c -- leapfrog time stepping of a damped 1-D wave with point sources.
 * Usage: wave [npts] [steps] [nsrc] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "wave.h"

int main(int argc, char **argv)
{
    int npts = argc > 1 ? atoi(argv[1]) : 20000;
    int steps = argc > 2 ? atoi(argv[2]) : 200;
    int nsrc = argc > 3 ? atoi(argv[3]) : 4;
    if (npts < 16 || steps < 1 || nsrc < 1) {
        fprintf(stderr, "usage: wave [npts >= 16] [steps] [nsrc >= 1]\n");
        return 1;
    }
    WaveState w;
    wave_setup(&w, npts, nsrc);
    double *next = alloc_doubles(npts);
    printf("wave: %d points, %d sources, %d steps\n", w.npts, w.nsrc, steps);

    const double damping = 0.999;
    double t0 = wall_time();
#pragma omp target data map(to: w.dt, w.vel[0:w.npts], w.src_at[0:w.nsrc], w.src_amp[0:w.nsrc]) \
    map(tofrom: w.p[0:w.npts]) map(to: w.p_old[0:w.npts]) map(alloc: next[0:npts])
    {
    for (int step = 0; step < steps; step++) {
        double c2 = (w.dt / w.dx) * (w.dt / w.dx);
#pragma omp target teams distribute parallel for
        for (int i = 0; i < npts; i++) {
            double left = i > 0 ? w.p[i - 1] : 0.0;
            double right = i < npts - 1 ? w.p[i + 1] : 0.0;
            double v2 = w.vel[i] * w.vel[i];
            next[i] = damping * (2.0 * w.p[i] - w.p_old[i] + c2 * v2 * (left - 2.0 * w.p[i] + right));
        }
        double t = step * w.dt;
#pragma omp target teams distribute parallel for
        for (int s = 0; s < nsrc; s++)
            next[w.src_at[s]] += w.dt * w.src_amp[s] * sin(40.0 * t + s);
#pragma omp target teams distribute parallel for
        for (int i = 0; i < npts; i++) {
            w.p_old[i] = w.p[i];
            w.p[i] = next[i];
        }
        if (step % 50 == 49) {
            double e = 0.0;
#pragma omp target teams distribute parallel for reduction(+: e)
            for (int i = 0; i < npts; i++)
                e += w.p[i] * w.p[i];
            printf("step %4d  energy %.9e\n", step + 1, e);
        }
    }
    }
    double t1 = wall_time();

    double peak = 0.0;
    int where = 0;
    for (int i = 0; i < w.npts; i++)
        if (fabs(w.p[i]) > peak) {
            peak = fabs(w.p[i]);
            where = i;
        }
    printf("peak |p| %.9e at %d\n", peak, where);
    fprintf(stderr, "time %.3f s\n", t1 - t0);
    free(next);
    wave_release(&w);
    return 0;
}
