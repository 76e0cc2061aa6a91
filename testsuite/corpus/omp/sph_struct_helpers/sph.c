/*
 * sph.c -- density summation with a cubic kernel, all pairs within 2h (brute
 * force), then a drift step that moves particles towards denser regions.
 * The particle set comes from particles_create() in particles.c.
 *
 * Usage: sph [n] [steps]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "particles.h"

static void compute_density(Particles *P)
{
    const int n = P->n;
    const double h = P->h;
#pragma omp target teams distribute parallel for \
    map(to: P->x[0:n], P->y[0:n], P->mass[0:n]) map(from: P->rho[0:n])
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < n; j++) {
            double dx = P->x[i] - P->x[j], dy = P->y[i] - P->y[j];
            double q = sqrt(dx * dx + dy * dy) / h;
            if (q < 1.0)
                sum += P->mass[j] * (1.0 - 1.5 * q * q + 0.75 * q * q * q);
            else if (q < 2.0)
                sum += P->mass[j] * 0.25 * (2.0 - q) * (2.0 - q) * (2.0 - q);
        }
        P->rho[i] = sum * 10.0 / (7.0 * 3.14159265358979 * h * h);
    }
}

static void drift(Particles *P, double dt)
{
    const int n = P->n;
#pragma omp target teams distribute parallel for \
    map(to: P->rho[0:n]) map(tofrom: P->x[0:n], P->y[0:n])
    for (int i = 0; i < n; i++) {
        double w = dt * (P->rho[i] - 0.3);
        P->x[i] += w * 0.01 * ((i % 3) - 1);
        P->y[i] += w * 0.01 * ((i % 5) - 2) * 0.5;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3000;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    Particles *P = particles_create(n, 1.3);

    double t0 = wtime();
    for (int s = 0; s < steps; s++) {
        compute_density(P);
        drift(P, 0.1);
        if (s % 3 == 0) {
            double rmax = 0.0;
            for (int i = 0; i < P->n; i++)
                rmax = fmax(rmax, P->rho[i]);
            printf("step %2d: max density %.8f\n", s, rmax);
        }
    }
    double t1 = wtime();
    compute_density(P);
    double total = 0.0;
    for (int i = 0; i < P->n; i++)
        total += P->rho[i];
    printf("mean density %.8f, x[7] %.8f\n", total / P->n, P->x[7]);
    fprintf(stderr, "sph: %.3f s cpu\n", t1 - t0);
    particles_destroy(P);
    return 0;
}
