/*
 * main.c -- driver of the heat diffusion example.
 *
 * Usage: heat [nx] [ny] [max_steps]
 */
#include <stdio.h>
#include <stdlib.h>

#include "heat.h"

int main(int argc, char **argv)
{
    heat_params p = {96, 80, 400, 0.2, 1e-4};
    if (argc > 1) p.nx = atoi(argv[1]);
    if (argc > 2) p.ny = atoi(argv[2]);
    if (argc > 3) p.max_steps = atoi(argv[3]);
    if (p.nx < 3 || p.ny < 3 || p.max_steps < 1) {
        fprintf(stderr, "usage: %s [nx>2] [ny>2] [max_steps>0]\n", argv[0]);
        return 1;
    }
    const int n = p.nx * p.ny;
    double *result = (double *)malloc((size_t)n * sizeof(double));
    double *temp = (double *)malloc((size_t)n * sizeof(double));
    if (!result || !temp) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    heat_init(&p, result);
    heat_init(&p, temp);

    printf("heat: %d x %d grid, alpha %.2f, at most %d steps\n", p.nx, p.ny, p.alpha, p.max_steps);
    double t0 = wall_seconds();
    double delta;
    int steps = heat_run(&p, result, temp, &delta);
    double t1 = wall_seconds();

    double sum = 0.0, hottest = 0.0;
    for (int k = 0; k < n; k++) {
        sum += result[k];
        if (k >= p.nx && result[k] > hottest)   /* below the boundary row */
            hottest = result[k];
    }
    printf("steps %d  last change %.6e\n", steps, delta);
    printf("mean %.6f  interior max %.6f\n", sum / n, hottest);
    for (int j = p.ny / 4; j < p.ny; j += p.ny / 4)
        printf("row %3d: %.6f %.6f %.6f\n", j, result[IDX(j, 1, p.nx)],
               result[IDX(j, p.nx / 2, p.nx)], result[IDX(j, p.nx - 2, p.nx)]);
    fprintf(stderr, "time %.3f s\n", t1 - t0);
    free(result);
    free(temp);
    return 0;
}
