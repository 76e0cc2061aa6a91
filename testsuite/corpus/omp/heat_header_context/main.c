/* main.c -- explicit 2-D heat diffusion from a hot square, offloaded with OpenMP. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "heat.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 256;
    int ny = argc > 2 ? atoi(argv[2]) : 256;
    int steps = argc > 3 ? atoi(argv[3]) : 200;
    int report = argc > 4 ? atoi(argv[4]) : 50;
    if (nx < 3 || ny < 3 || steps < 1 || report < 1) {
        fprintf(stderr, "usage: %s [nx>2] [ny>2] [steps] [report]\n", argv[0]);
        return 1;
    }

    double *u = (double *)calloc((size_t)nx * ny, sizeof(double));
    for (int i = ny / 4; i < 3 * ny / 4; i++)
        for (int j = nx / 4; j < 3 * nx / 4; j++)
            u[(size_t)i * nx + j] = 100.0;

    printf("heat: %d x %d grid, %d steps\n", nx, ny, steps);
    double start = seconds();
    heat_solve(u, nx, ny, steps, report);
    fprintf(stderr, "solve time: %.3f s\n", seconds() - start);

    double corner = u[(size_t)(ny / 4) * nx + nx / 4], centre = u[(size_t)(ny / 2) * nx + nx / 2];
    printf("corner %.6f  centre %.6f\n", corner, centre);
    free(u);
    return 0;
}
