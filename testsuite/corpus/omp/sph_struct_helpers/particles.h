/* particles.h -- structure-of-arrays particle set for a toy SPH density loop */
#ifndef PARTICLES_H
#define PARTICLES_H

typedef struct {
    int n;
    double h;        /* smoothing length */
    double *x, *y;   /* positions */
    double *mass;
    double *rho;     /* density (output) */
} Particles;

Particles *particles_create(int n, double h);
void particles_destroy(Particles *p);
double wtime(void);

#endif
