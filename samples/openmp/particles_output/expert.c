/*
 * particles_output.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as particles_output.c.  One data region from the initial
 * force computation to the end of the run: positions and the zero
 * velocities go in once, forces are device-only (compute_forces writes
 * them before any kick reads them).  The whole global arrays are mapped
 * because the kernels map them implicitly as a whole.  The step-0 snapshot
 * needs nothing (the device has not moved anything yet); every later
 * snapshot brings back the first n positions only, and at the end only the
 * six printed velocity/force components come back.
 *
 * The original program: a bead-spring chain falling onto a floor, with
 * velocity-Verlet time stepping on the device and host output every
 * `every` steps (the kind of trajectory dump an MD code writes).
 *
 * Particles live in global fixed-size arrays (NMAX entries, the first n
 * used).  Per step the device runs a
 * half kick + drift kernel, the spring/gravity/floor force kernel and the
 * second half kick.  Every `every` steps the host writes a snapshot
 * summary: it reads ALL positions (centre of mass, lowest and highest bead,
 * extent of the chain) but no velocities.  Velocities and forces are
 * only looked at for a few beads after the run.
 *
 * Usage: particles_output [n] [steps] [every]      (n <= NMAX)
 */
#include <stdio.h>
#include <stdlib.h>

#define NMAX 8192
#define DT 0.002
#define K_SPRING 400.0
#define REST 0.5
#define GRAV 9.75
#define K_FLOOR 2000.0

double px[NMAX], py[NMAX];     /* positions    */
double vx[NMAX], vy[NMAX];     /* velocities   */
double fx[NMAX], fy[NMAX];     /* forces       */

static void compute_forces(int n)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i) {
        double ax = 0.0, ay = -GRAV;
        /* springs to both chain neighbours (1-D rest length along x) */
        if (i > 0) {
            ax -= K_SPRING * ((px[i] - px[i - 1]) - REST);
            ay -= K_SPRING * (py[i] - py[i - 1]);
        }
        if (i < n - 1) {
            ax += K_SPRING * ((px[i + 1] - px[i]) - REST);
            ay += K_SPRING * (py[i + 1] - py[i]);
        }
        if (py[i] < 0.0)                      /* soft floor */
            ay -= K_FLOOR * py[i];
        fx[i] = ax;
        fy[i] = ay;
    }
}

static void snapshot(int step, int n)
{
    double cx = 0.0, cy = 0.0, ylo = py[0], yhi = py[0], len;
    for (int i = 0; i < n; ++i) {
        cx += px[i];
        cy += py[i];
        if (py[i] < ylo) ylo = py[i];
        if (py[i] > yhi) yhi = py[i];
    }
    len = px[n - 1] - px[0];
    printf("step %4d  com (%.6e, %.6e)  y in [%.6e, %.6e]  extent %.6e\n",
           step, cx / n, cy / n, ylo, yhi, len);
}

int main(int argc, char **argv)
{
    int n = 6000, steps = 400, every = 50;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (argc > 3) every = atoi(argv[3]);
    if (n < 4 || n > NMAX || steps < 1 || every < 1) {
        fprintf(stderr, "usage: %s [4<=n<=%d] [steps>=1] [every>=1]\n", argv[0], NMAX);
        return 1;
    }

    /* a wavy chain above the floor, at rest */
    for (int i = 0; i < n; ++i) {
        px[i] = REST * i + 0.0625 * ((i % 4) - 1);
        py[i] = 2.0 + 0.25 * ((i % 8) - 4) / 4.0;
        vx[i] = 0.0;
        vy[i] = 0.0;
    }

    #pragma omp target data map(to: px, py, vx, vy) map(alloc: fx, fy)
    {
        compute_forces(n);
        snapshot(0, n);

        for (int step = 1; step <= steps; ++step) {
            /* half kick + drift */
            #pragma omp target teams distribute parallel for
            for (int i = 0; i < n; ++i) {
                vx[i] += 0.5 * DT * fx[i];
                vy[i] += 0.5 * DT * fy[i];
                px[i] += DT * vx[i];
                py[i] += DT * vy[i];
            }

            compute_forces(n);

            /* second half kick */
            #pragma omp target teams distribute parallel for
            for (int i = 0; i < n; ++i) {
                vx[i] += 0.5 * DT * fx[i];
                vy[i] += 0.5 * DT * fy[i];
            }

            if (step % every == 0) {
                #pragma omp target update from(px[0:n], py[0:n])
                snapshot(step, n);
            }
        }

        #pragma omp target update from(vx[0:1], vy[0:1])
        #pragma omp target update from(vx[n / 2:1], vy[n / 2:1])
        #pragma omp target update from(fx[n - 1:1], fy[n - 1:1])
    }

    printf("particles_output: n=%d steps=%d every=%d\n", n, steps, every);
    printf("v[0] = (%.6e, %.6e)  v[n/2] = (%.6e, %.6e)  f[n-1] = (%.6e, %.6e)\n",
           vx[0], vy[0], vx[n / 2], vy[n / 2], fx[n - 1], fy[n - 1]);
    return 0;
}
