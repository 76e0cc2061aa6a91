/*
 * main.c -- Poisson solver driver: allocates the row grids (as a flat byte
 * count, the way C codes often do) and runs Jacobi sweeps, printing the
 * residual every `report` sweeps.
 *
 * Usage: poisson [ny] [sweeps] [report]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include "grid.h"

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}

int main(int argc, char **argv)
{
    int ny = argc > 1 ? atoi(argv[1]) : 96;
    int sweeps = argc > 2 ? atoi(argv[2]) : 200;
    int report = argc > 3 ? atoi(argv[3]) : 50;
    if (ny < 3 || sweeps < 1 || report < 1) {
        fprintf(stderr, "usage: %s [ny>2] [sweeps>0] [report>0]\n", argv[0]);
        return 1;
    }
    row_t *phi = malloc(ny * NX * sizeof(double));
    row_t *next = malloc(ny * NX * sizeof(double));
    double (*rhs)[NX] = calloc(ny * NX, sizeof(double));
    if (!phi || !next || !rhs) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    const double h = 1.0 / (NX - 1);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < NX; i++)
            phi[j][i] = next[j][i] = (j == 0) ? 1.0 : 0.0;   /* fixed top edge */
    set_source(rhs, ny, h);

    double t0 = now();
    for (int s = 1; s <= sweeps; s++) {
        sweep(phi, next, rhs, ny, h * h);
        if (s % report == 0)
            printf("sweep %4d  residual %.9e\n", s, residual(phi, rhs, ny, h * h));
    }
    double t1 = now();

    double total = 0.0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < NX; i++)
            total += phi[j][i];
    printf("sum %.9f  centre %.9f\n", total, phi[ny / 2][NX / 2]);
    fprintf(stderr, "%d sweeps in %.3f s\n", sweeps, t1 - t0);
    free(phi);
    free(next);
    free(rhs);
    return 0;
}
