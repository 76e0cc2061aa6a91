#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "grid.h"
#include "offload.h"

double *grid_alloc(int nx, int ny)
{
    double *g = (double *)malloc((size_t)nx * (size_t)ny * sizeof(double));
    if (g == NULL) {
        fprintf(stderr, "grid_alloc: out of memory (%d x %d)\n", nx, ny);
        exit(1);
    }
    return g;
}

/* a warm disc in the middle, cold elsewhere, the edges held at 1 */
void grid_init(double *u, int nx, int ny)
{
    HOST_PARALLEL_FOR
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            double x = (i - nx / 2) / (double)nx, y = (j - ny / 2) / (double)ny;
            int edge = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
            u[IDX(i, j, ny)] = edge ? 1.0 : (x * x + y * y < 0.04 ? 10.0 : 0.0);
        }
}

double grid_checksum(const double *u, int nx, int ny)
{
    double s = 0.0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            s += u[IDX(i, j, ny)] * (1.0 + 1e-3 * ((i + j) % 7));
    return s;
}
