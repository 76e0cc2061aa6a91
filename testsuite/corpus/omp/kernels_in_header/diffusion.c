/*
 * diffusion.c -- explicit 2-D heat diffusion with fixed (Dirichlet) borders.
 * The kernels are static inline functions in stencil.h; this file owns the
 * grids, the time loop and the output.  Every `check` steps the host asks
 * for the largest change of the last step.
 *
 * Usage: diffusion [nx] [ny] [steps] [check]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

#define ALPHA 0.125f

static float *make_grid(int nx, int ny)
{
    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *g = (float *)malloc(bytes);
    if (g == NULL) {
        fprintf(stderr, "make_grid: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(g, 0, bytes);
    return g;
}

static void set_boundary(float *g, int nx, int ny)
{
    for (int j = 0; j < nx; j++) {
        g[IDX(0, j, nx)] = 1.0f;
        g[IDX(ny - 1, j, nx)] = 0.0f;
    }
    for (int i = 0; i < ny; i++) {
        g[IDX(i, 0, nx)] = 0.5f;
        g[IDX(i, nx - 1, nx)] = 0.25f;
    }
}

int main(int argc, char **argv)
{
    int nx = 256, ny = 192, steps = 100, check = 25;
    if (argc > 1) nx = atoi(argv[1]);
    if (argc > 2) ny = atoi(argv[2]);
    if (argc > 3) steps = atoi(argv[3]);
    if (argc > 4) check = atoi(argv[4]);
    if (nx < 3 || ny < 3 || steps < 1 || check < 1) {
        fprintf(stderr, "usage: %s [nx] [ny] [steps] [check]\n", argv[0]);
        return 1;
    }
    float *u = make_grid(nx, ny);
    float *unew = make_grid(nx, ny);
    set_boundary(u, nx, ny);
    set_boundary(unew, nx, ny);

    for (int step = 1; step <= steps; step++) {
        stencil_step(u, unew, nx, ny, ALPHA);
        if (step % check == 0) {
            float d = stencil_max_diff(u, unew, nx, ny);
            printf("step %4d  max change %.6e\n", step, d);
        }
        float *tmp = u;
        u = unew;
        unew = tmp;
    }

    double sum = 0.0;
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++)
            sum += u[IDX(i, j, nx)];
    printf("mean temperature %.8f\n", sum / ((double)nx * ny));
    printf("u[1][1] %.8f  u[mid][mid] %.8f\n", u[IDX(1, 1, nx)], u[IDX(ny / 2, nx / 2, nx)]);
    free(u);
    free(unew);
    return 0;
}
