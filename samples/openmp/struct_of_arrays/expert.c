/*
 * struct_of_arrays.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as struct_of_arrays.c.  The four member arrays are created
 * on the device once (alloc: the init kernel writes all of them before any
 * device read) by a data region in main, which also attaches the device
 * pointers once.  The kernels keep their member-section map clauses, which
 * now only find the data present (no copy, no re-attach).  Only the
 * reduction scalars travel every 10 steps, and at the end only the six
 * printed elements come back.
 *
 * The original program:
 *
 *     struct Particles { double *x, *y, *vx, *vy; int n; };
 *
 * Kernels in main access the members of a local struct (p.x[i]); the
 * helper functions receive a pointer to it (ps->vx[i]).  The member arrays
 * are mapped with OpenMP 5 struct-member array sections such as
 * map(tofrom: p.x[0:n]) and map(tofrom: ps->vx[0:n]) (which also attach the
 * device copies of the pointers).  The count is read into a local `n`: the
 * member `n` itself is never mapped.
 *
 * Usage: struct_of_arrays [nparticles] [steps]
 */
#include <stdio.h>
#include <stdlib.h>

struct Particles {
    double *x, *y, *vx, *vy;
    int n;
};

#define BOX 64.0

/* drift: x += dt*vx, y += dt*vy, reflecting at the walls of [0,BOX]^2 */
static void drift(struct Particles *ps, double dt)
{
    const int n = ps->n;
    #pragma omp target teams distribute parallel for \
            map(tofrom: ps->x[0:n], ps->y[0:n], ps->vx[0:n], ps->vy[0:n])
    for (int i = 0; i < n; ++i) {
        ps->x[i] += dt * ps->vx[i];
        ps->y[i] += dt * ps->vy[i];
        if (ps->x[i] < 0.0)  { ps->x[i] = -ps->x[i];           ps->vx[i] = -ps->vx[i]; }
        if (ps->x[i] > BOX)  { ps->x[i] = 2.0 * BOX - ps->x[i]; ps->vx[i] = -ps->vx[i]; }
        if (ps->y[i] < 0.0)  { ps->y[i] = -ps->y[i];           ps->vy[i] = -ps->vy[i]; }
        if (ps->y[i] > BOX)  { ps->y[i] = 2.0 * BOX - ps->y[i]; ps->vy[i] = -ps->vy[i]; }
    }
}

/* kick: constant downward acceleration g */
static void kick(struct Particles *ps, double g, double dt)
{
    const int n = ps->n;
    #pragma omp target teams distribute parallel for map(tofrom: ps->vy[0:n])
    for (int i = 0; i < n; ++i)
        ps->vy[i] -= g * dt;
}

int main(int argc, char **argv)
{
    int np = 2048, steps = 40;
    if (argc > 1) np = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (np < 4 || steps < 1) {
        fprintf(stderr, "usage: %s [nparticles>=4] [steps>=1]\n", argv[0]);
        return 1;
    }

    struct Particles p;
    p.n = np;
    p.x = (double *)malloc((size_t)np * sizeof(double));
    p.y = (double *)malloc((size_t)np * sizeof(double));
    p.vx = (double *)malloc((size_t)np * sizeof(double));
    p.vy = (double *)malloc((size_t)np * sizeof(double));
    if (!p.x || !p.y || !p.vx || !p.vy) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    const int n = p.n;
    #pragma omp target data map(alloc: p.x[0:n], p.y[0:n], p.vx[0:n], p.vy[0:n])
    {
    /* initial positions/velocities on the device (dyadic values only) */
    #pragma omp target teams distribute parallel for \
            map(tofrom: p.x[0:n], p.y[0:n], p.vx[0:n], p.vy[0:n])
    for (int i = 0; i < n; ++i) {
        p.x[i] = (double)(i % 64) + 0.5;
        p.y[i] = (double)((i / 64) % 64) + 0.25;
        p.vx[i] = 0.25 * ((i % 13) - 6);
        p.vy[i] = 0.5 * ((i % 7) - 3);
    }

    const double dt = 0.0625, g = 1.0;
    for (int s = 1; s <= steps; ++s) {
        kick(&p, g, dt);
        drift(&p, dt);

        if (s % 10 == 0) {
            double cx = 0.0, cy = 0.0, ek = 0.0;
            #pragma omp target teams distribute parallel for reduction(+:cx, cy, ek) \
                    map(tofrom: p.x[0:n], p.y[0:n], p.vx[0:n], p.vy[0:n])
            for (int i = 0; i < n; ++i) {
                cx += p.x[i];
                cy += p.y[i];
                ek += 0.5 * (p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i]);
            }
            printf("step %3d  centre (%.6g, %.6g)  kinetic %.6g\n", s, cx / n, cy / n, ek);
        }
    }

    #pragma omp target update from(p.x[0:1], p.y[0:1], p.vx[0:1], p.vy[0:1])
    #pragma omp target update from(p.x[n - 1:1], p.y[n - 1:1])
    }

    printf("struct_of_arrays: n=%d steps=%d\n", n, steps);
    printf("p0 = (%.6g, %.6g) v0 = (%.6g, %.6g)   p[n-1] = (%.6g, %.6g)\n",
           p.x[0], p.y[0], p.vx[0], p.vy[0], p.x[n - 1], p.y[n - 1]);

    free(p.x);
    free(p.y);
    free(p.vx);
    free(p.vy);
    return 0;
}
