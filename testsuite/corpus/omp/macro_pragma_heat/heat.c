/* Explicit heat diffusion on an nx x ny grid; prints the energy every `report` steps.
 * Usage: heat [nx] [ny] [steps] [report] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "offload.h"
#include "grid.h"
#include "heat_kernels.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 96;
    int ny = argc > 2 ? atoi(argv[2]) : 80;
    int steps = argc > 3 ? atoi(argv[3]) : 60;
    int report = argc > 4 ? atoi(argv[4]) : 20;
    if (nx < 3 || ny < 3 || steps < 1 || report < 1) {
        fprintf(stderr, "usage: heat [nx >= 3] [ny >= 3] [steps] [report]\n");
        return 1;
    }
    const double alpha = 0.2;
    double *u = grid_alloc(nx, ny);
    double *un = grid_alloc(nx, ny);
    grid_init(u, nx, ny);
    printf("heat: %d x %d grid, %d steps\n", nx, ny, steps);

    double t0 = seconds();
    for (int step = 1; step <= steps; step++) {
        heat_step(u, un, nx, ny, alpha);
        heat_copy(u, un, nx, ny);
        if (step % report == 0)
            printf("step %4d  energy %.6e\n", step, heat_energy(u, nx, ny));
    }
    double t1 = seconds();

    printf("checksum %.9e\n", grid_checksum(u, nx, ny));
    fprintf(stderr, "time %.3f s (%.2f us per step)\n", t1 - t0, 1e6 * (t1 - t0) / steps);
    free(u);
    free(un);
    return 0;
}
