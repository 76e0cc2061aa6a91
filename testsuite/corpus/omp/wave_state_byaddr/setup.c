/* setup.c -- allocation and initial state of the wave solver */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include "wave.h"

double wall_time(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

double *alloc_doubles(int count)
{
    double *p = (double *)malloc(sizeof(double) * (size_t)count);
    if (!p) {
        fprintf(stderr, "alloc_doubles(%d): out of memory\n", count);
        exit(2);
    }
    return p;
}

void wave_setup(WaveState *w, int npts, int nsrc)
{
    w->npts = npts;
    w->nsrc = nsrc;
    w->dx = 1.0 / (npts - 1);
    w->dt = 0.4 * w->dx;
    w->p = alloc_doubles(w->npts);
    w->p_old = alloc_doubles(w->npts);
    w->vel = alloc_doubles(w->npts);
    w->src_at = (int *)malloc(sizeof(int) * (size_t)w->nsrc);
    w->src_amp = alloc_doubles(w->nsrc);
    if (!w->src_at) {
        fprintf(stderr, "wave_setup: out of memory\n");
        exit(2);
    }
    for (int i = 0; i < npts; i++) {
        w->p[i] = 0.0;
        w->p_old[i] = 0.0;
        w->vel[i] = (i < npts / 3) ? 1.0 : 0.6 + 0.2 * ((i / 7) % 3);
    }
    for (int s = 0; s < nsrc; s++) {
        w->src_at[s] = (s + 1) * npts / (nsrc + 1);
        w->src_amp[s] = 1.0 + 0.5 * s;
    }
}

void wave_release(WaveState *w)
{
    free(w->p);
    free(w->p_old);
    free(w->vel);
    free(w->src_at);
    free(w->src_amp);
}
