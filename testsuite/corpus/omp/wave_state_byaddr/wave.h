/* wave.h -- state of a 1-D damped wave solver; the arrays are allocated by wave_setup()
 * in setup.c, which also keeps their length beside them. */
#ifndef WAVE_H
#define WAVE_H

typedef struct {
    int npts;        /* grid points */
    int nsrc;        /* point sources */
    double dt, dx;
    double *p;       /* pressure now */
    double *p_old;   /* pressure one step back */
    double *vel;     /* wave speed per point */
    int *src_at;     /* where each source sits */
    double *src_amp; /* its amplitude */
} WaveState;

void wave_setup(WaveState *w, int npts, int nsrc);
void wave_release(WaveState *w);
double *alloc_doubles(int count);
double wall_time(void);

#endif
