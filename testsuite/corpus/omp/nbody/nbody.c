/*
 * nbody.c -- direct-summation gravitational N-body integration
 * (kick-drift-kick leapfrog).  Accelerations and the position/velocity
 * updates run on the device; every `report` steps the host computes the
 * total energy from positions, velocities and masses.
 *
 * Usage: nbody [bodies] [steps] [report_every]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SOFTENING 0.01
#define DT 0.001

typedef struct {
    double *x, *y, *z;
    double *vx, *vy, *vz;
    double *ax, *ay, *az;
    double *m;
} Bodies;

static double *new_array(int n)
{
    double *a = (double *)malloc(n * sizeof(double));
    if (!a) {
        perror("malloc");
        exit(1);
    }
    return a;
}

static void init_bodies(Bodies *b, int n)
{
    b->x = new_array(n); b->y = new_array(n); b->z = new_array(n);
    b->vx = new_array(n); b->vy = new_array(n); b->vz = new_array(n);
    b->ax = new_array(n); b->ay = new_array(n); b->az = new_array(n);
    b->m = new_array(n);
    for (int i = 0; i < n; i++) {
        b->x[i] = ((i * 37) % 101) / 50.0 - 1.0;
        b->y[i] = ((i * 53) % 103) / 51.0 - 1.0;
        b->z[i] = ((i * 71) % 107) / 53.0 - 1.0;
        b->vx[i] = -b->y[i] * 0.125;
        b->vy[i] = b->x[i] * 0.125;
        b->vz[i] = 0.0;
        b->m[i] = 1.0 / n;
    }
}

static double energy(const Bodies *b, int n)
{
    double ek = 0.0, ep = 0.0;
    for (int i = 0; i < n; i++) {
        ek += 0.5 * b->m[i] * (b->vx[i] * b->vx[i] + b->vy[i] * b->vy[i] + b->vz[i] * b->vz[i]);
        for (int j = i + 1; j < n; j++) {
            double dx = b->x[i] - b->x[j], dy = b->y[i] - b->y[j], dz = b->z[i] - b->z[j];
            ep -= b->m[i] * b->m[j] / sqrt(dx * dx + dy * dy + dz * dz + SOFTENING);
        }
    }
    return ek + ep;
}

static void compute_accel(double *x, double *y, double *z, double *ax, double *ay, double *az,
                          double *m, int n)
{
#pragma omp target teams distribute parallel for \
        map(to: x[0:n], y[0:n], z[0:n], m[0:n]) map(from: ax[0:n], ay[0:n], az[0:n])
    for (int i = 0; i < n; i++) {
        double fx = 0.0, fy = 0.0, fz = 0.0;
        for (int j = 0; j < n; j++) {
            double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            double r2 = dx * dx + dy * dy + dz * dz + SOFTENING;
            double inv = m[j] / (r2 * sqrt(r2));
            fx += dx * inv;
            fy += dy * inv;
            fz += dz * inv;
        }
        ax[i] = fx;
        ay[i] = fy;
        az[i] = fz;
    }
}

int main(int argc, char **argv)
{
    int n = 1024, steps = 40, report = 10;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (argc > 3) report = atoi(argv[3]);
    if (n < 2 || steps < 1 || report < 1) {
        fprintf(stderr, "usage: %s [bodies] [steps] [report_every]\n", argv[0]);
        return 1;
    }
    Bodies b;
    init_bodies(&b, n);
    double *x = b.x, *y = b.y, *z = b.z, *vx = b.vx, *vy = b.vy, *vz = b.vz;
    double *ax = b.ax, *ay = b.ay, *az = b.az, *m = b.m;
    const double e0 = energy(&b, n);
    printf("bodies %d, initial energy %.10f\n", n, e0);

    compute_accel(x, y, z, ax, ay, az, m, n);
    for (int step = 1; step <= steps; step++) {
#pragma omp target teams distribute parallel for \
        map(to: ax[0:n], ay[0:n], az[0:n]) \
        map(tofrom: x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n])
        for (int i = 0; i < n; i++) {
            vx[i] += 0.5 * DT * ax[i];
            vy[i] += 0.5 * DT * ay[i];
            vz[i] += 0.5 * DT * az[i];
            x[i] += DT * vx[i];
            y[i] += DT * vy[i];
            z[i] += DT * vz[i];
        }
        compute_accel(x, y, z, ax, ay, az, m, n);
#pragma omp target teams distribute parallel for \
        map(to: ax[0:n], ay[0:n], az[0:n]) map(tofrom: vx[0:n], vy[0:n], vz[0:n])
        for (int i = 0; i < n; i++) {
            vx[i] += 0.5 * DT * ax[i];
            vy[i] += 0.5 * DT * ay[i];
            vz[i] += 0.5 * DT * az[i];
        }
        if (step % report == 0) {
            double e = energy(&b, n);
            printf("step %4d  energy %.10f  drift %.3e\n", step, e, (e - e0) / fabs(e0));
        }
    }
    printf("body 0 at (%.8f, %.8f, %.8f)\n", x[0], y[0], z[0]);
    free(b.x); free(b.y); free(b.z);
    free(b.vx); free(b.vy); free(b.vz);
    free(b.ax); free(b.ay); free(b.az);
    free(b.m);
    return 0;
}
