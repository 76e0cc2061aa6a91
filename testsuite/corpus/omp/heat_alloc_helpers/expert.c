/*
 * heat.c -- explicit 2-D heat equation on a plate with fixed-temperature
 * holes (a mask).  Fields come from the checked helpers in util.c; the grid
 * sizes are declared first and assigned once from the command line.
 *
 * Usage: heat [nx] [ny] [steps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "util.h"

int main(int argc, char *argv[])
{
    int nx, ny, steps;
    size_t cells;
    double alpha = 0.2;

    nx = argc > 1 ? atoi(argv[1]) : 256;
    ny = argc > 2 ? atoi(argv[2]) : 192;
    steps = argc > 3 ? atoi(argv[3]) : 400;
    cells = (size_t)nx * ny;

    double *t_old = alloc_field(cells, 20.0);
    double *t_new = alloc_field(cells, 20.0);
    int *fixed = alloc_mask(cells);

    /* hot left edge, cold holes */
    for (int j = 0; j < ny; j++) {
        t_old[j * nx] = t_new[j * nx] = 100.0;
        fixed[j * nx] = 1;
    }
    for (int j = ny / 3; j < ny / 3 + 8; j++)
        for (int i = nx / 2; i < nx / 2 + 8; i++) {
            t_old[j * nx + i] = t_new[j * nx + i] = 0.0;
            fixed[j * nx + i] = 1;
        }

    double start = get_time();
#pragma omp target data map(to: fixed[0:cells], t_new[0:cells]) map(tofrom: t_old[0:cells])
    for (int s = 1; s <= steps; s++) {
#pragma omp target teams distribute parallel for collapse(2)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                int c = j * nx + i;
                if (fixed[c])
                    continue;
                t_new[c] = t_old[c] + alpha * (t_old[c - 1] + t_old[c + 1] + t_old[c - nx] +
                                               t_old[c + nx] - 4.0 * t_old[c]);
            }

        double diff = 0.0;
#pragma omp target teams distribute parallel for reduction(max: diff)
        for (size_t c = 0; c < cells; c++) {
            double d = fabs(t_new[c] - t_old[c]);
            if (d > diff)
                diff = d;
            t_old[c] = t_new[c];
        }
        if (s % 100 == 0)
            printf("step %d: max change %.6e\n", s, diff);
    }
    double stop = get_time();

    double total = 0.0;
    for (size_t c = 0; c < cells; c++)
        total += t_old[c];
    printf("mean temperature %.8f\n", total / cells);
    printf("probe (%d,%d) = %.8f\n", nx / 4, ny / 2, t_old[(ny / 2) * nx + nx / 4]);
    fprintf(stderr, "%d steps in %.3f s\n", steps, stop - start);
    free(t_old);
    free(t_new);
    free(fixed);
    return 0;
}
