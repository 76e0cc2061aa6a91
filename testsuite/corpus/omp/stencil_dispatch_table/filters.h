/* filters.h -- the smoothing sweeps the driver can pick, all with one signature. */
#ifndef FILTERS_H
#define FILTERS_H

typedef void (*sweep_fn)(int n, const double *restrict src, double *restrict dst);

void unknown_filter(int n, const double *restrict src, double *restrict dst);
void star1(int n, const double *restrict src, double *restrict dst);
void star2(int n, const double *restrict src, double *restrict dst);
void box1(int n, const double *restrict src, double *restrict dst);

double *grid_alloc(int n, const char *what);
double now_seconds(void);

#endif
