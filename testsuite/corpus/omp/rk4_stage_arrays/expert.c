/*
 * rk4.c -- RK4 for a chain of coupled, damped oscillators.  The stage
 * derivatives live in arrays of pointers (`double *kx[NSTAGE]`), each stage
 * allocated in a loop, as many hand-written integrators keep them.
 *
 * Usage: rk4 [n] [steps]
 */
#include <stdio.h>
#include <stdlib.h>
#include "model.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int steps = argc > 2 ? atoi(argv[2]) : 50;
    const double dt = 0.01, kspring = 4.0, damp = 0.05;
    const double c[NSTAGE] = {0.0, 0.5, 0.5, 1.0};

    double *x = malloc(sizeof(double) * n);
    double *v = malloc(sizeof(double) * n);
    double *kx[NSTAGE], *kv[NSTAGE];
    for (int s = 0; s < NSTAGE; s++) {
        kx[s] = calloc(n, sizeof(double));
        kv[s] = calloc(n, sizeof(double));
        if (!kx[s] || !kv[s]) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
    }
    init_state(x, v, n);

    double t0 = now_seconds();
#pragma omp target enter data map(to: x[0:n], v[0:n])
    for (int s = 0; s < NSTAGE; s++) {
#pragma omp target enter data map(to: kx[s][0:n], kv[s][0:n])
    }
    for (int step = 0; step < steps; step++) {
        for (int s = 0; s < NSTAGE; s++) {
            double *kxp = kx[s > 0 ? s - 1 : NSTAGE - 1], *kvp = kv[s > 0 ? s - 1 : NSTAGE - 1];
            double *kxs = kx[s], *kvs = kv[s];
            double h = c[s] * dt;
#pragma omp target teams distribute parallel for
            for (int i = 0; i < n; i++) {
                double xi = x[i] + h * kxp[i], vi = v[i] + h * kvp[i];
                int l = i > 0 ? i - 1 : i, r = i < n - 1 ? i + 1 : i;
                double xl = x[l] + h * kxp[l], xr = x[r] + h * kxp[r];
                kxs[i] = vi;
                kvs[i] = kspring * (xl + xr - 2.0 * xi) - damp * vi;
            }
        }
        double *k1x = kx[0], *k2x = kx[1], *k3x = kx[2], *k4x = kx[3];
        double *k1v = kv[0], *k2v = kv[1], *k3v = kv[2], *k4v = kv[3];
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++) {
            x[i] += dt / 6.0 * (k1x[i] + 2.0 * k2x[i] + 2.0 * k3x[i] + k4x[i]);
            v[i] += dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
        }
        if (step % 10 == 0) {
            double e = 0.0;
#pragma omp target update from(v[0:n])
            for (int i = 0; i < n; i++)
                e += 0.5 * v[i] * v[i];
            printf("step %3d: kinetic energy %.10f\n", step, e);
        }
    }
    double t1 = now_seconds();
#pragma omp target exit data map(from: x[0:n]) map(release: v[0:n])
    for (int s = 0; s < NSTAGE; s++) {
#pragma omp target exit data map(release: kx[s][0:n], kv[s][0:n])
    }

    double sx = 0.0;
    for (int i = 0; i < n; i++)
        sx += x[i];
    printf("sum x = %.10f, x[n/2] = %.10f\n", sx, x[n / 2]);
    fprintf(stderr, "rk4: %d steps in %.3f s\n", steps, t1 - t0);
    for (int s = 0; s < NSTAGE; s++) {
        free(kx[s]);
        free(kv[s]);
    }
    free(x);
    free(v);
    return 0;
}
