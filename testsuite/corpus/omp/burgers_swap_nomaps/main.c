/* Burgers' equation driver.  Usage: burgers [cells] [max_steps] */
#include <stdio.h>
#include <stdlib.h>

#include "burgers.h"

int main(int argc, char **argv)
{
    burgers_params p;
    p.cells = argc > 1 ? atoi(argv[1]) : 20000;
    p.max_steps = argc > 2 ? atoi(argv[2]) : 300;
    if (p.cells < 3 || p.max_steps < 1) {
        fprintf(stderr, "usage: %s [cells>2] [max_steps>0]\n", argv[0]);
        return 1;
    }
    p.nu = 0.001;
    p.dx = 1.0 / (p.cells - 1);
    p.dt = 0.2 * p.dx;
    if (p.dt > 0.2 * p.dx * p.dx / p.nu)      /* diffusive limit */
        p.dt = 0.2 * p.dx * p.dx / p.nu;
    p.settle = 1e-7;
    const int n = p.cells;
    double *result = (double *)malloc((size_t)n * sizeof(double));
    double *scratch = (double *)malloc((size_t)n * sizeof(double));
    if (result == NULL || scratch == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    burgers_initial(&p, result);
    burgers_initial(&p, scratch);

    double start = burgers_clock();
    double change;
    int steps = burgers_solve(&p, result, scratch, &change);
    double elapsed = burgers_clock() - start;

    double mass = 0.0, peak = 0.0;
    int where = 0;
    for (int i = 0; i < n; i++) {
        mass += result[i] * p.dx;
        if (result[i] > peak) {
            peak = result[i];
            where = i;
        }
    }
    printf("cells %d steps %d last change %.6e\n", n, steps, change);
    printf("mass %.9f peak %.9f at x = %.6f\n", mass, peak, where * p.dx);
    for (int i = n / 8; i < n; i += n / 4)
        printf("u(%.4f) = %.9f\n", i * p.dx, result[i]);
    fprintf(stderr, "solve: %.3f ms\n", elapsed * 1e3);
    free(result);
    free(scratch);
    return 0;
}
