/* particles.c -- allocation helpers and a lattice-with-jitter initial state */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "particles.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "xmalloc: %zu bytes\n", bytes);
        abort();
    }
    return p;
}

static double *alloc_doubles(int count)
{
    double *a = (double *)malloc(sizeof(double) * (size_t)count);
    if (a == NULL) {
        fprintf(stderr, "alloc_doubles(%d)\n", count);
        exit(2);
    }
    return a;
}

Particles *particles_create(int n, double h)
{
    Particles *p = (Particles *)xmalloc(sizeof(Particles));
    int side = 1;
    while (side * side < n)
        side++;
    p->n = n;
    p->h = h;
    p->x = alloc_doubles(n);
    p->y = alloc_doubles(n);
    p->mass = alloc_doubles(n);
    p->rho = alloc_doubles(n);
    unsigned s = 12345u;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        p->x[i] = (i % side) + 0.2 * ((s >> 8) % 100) / 100.0;
        p->y[i] = (i / side) + 0.2 * ((s >> 16) % 100) / 100.0;
        p->mass[i] = 1.0 + 0.01 * (i % 10);
    }
    return p;
}

void particles_destroy(Particles *p)
{
    free(p->x);
    free(p->y);
    free(p->mass);
    free(p->rho);
    free(p);
}

double wtime(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}
