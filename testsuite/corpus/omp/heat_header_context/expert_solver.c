/* solver.c -- time loop of the explicit heat solver; kernels live in heat_kernels.h. */
#include <stdio.h>
#include <stdlib.h>

#include "heat.h"

typedef double real_t;
#define ALPHA 0.2
#define AT(i, j) ((size_t)(i) * (size_t)nx + (size_t)(j))

#include "heat_kernels.h"

void heat_solve(double *u, int nx, int ny, int steps, int report)
{
    real_t *next = (real_t *)malloc((size_t)nx * ny * sizeof(real_t));
    if (next == NULL) {
        fprintf(stderr, "heat_solve: out of memory\n");
        exit(1);
    }
    for (int k = 0; k < nx * ny; k++)
        next[k] = u[k];

    size_t cells = (size_t)nx * ny;
#pragma omp target data map(tofrom: u[0:cells]) map(alloc: next[0:cells])
    for (int step = 1; step <= steps; step++) {
        apply_stencil(u, next, nx, ny);
        copy_interior(u, next, nx, ny);
        if (step % report == 0)
            printf("step %5d  heat %.6f\n", step, total_heat(u, nx, ny));
    }
    free(next);
}
