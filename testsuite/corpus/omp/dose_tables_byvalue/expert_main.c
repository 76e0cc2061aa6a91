/* Ray-marching dose estimate over attenuation tables (built in tables.c, passed by value
 * to the kernel in transport.c).  Usage: dose [rays] [points] [steps] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tables.h"

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int n_rays = argc > 1 ? atoi(argv[1]) : 20000;
    int n_points = argc > 2 ? atoi(argv[2]) : 400;
    int steps = argc > 3 ? atoi(argv[3]) : 5;
    if (n_rays < 1 || n_points < 2 || steps < 1) {
        fprintf(stderr, "usage: %s [rays] [points>=2] [steps]\n", argv[0]);
        return 1;
    }
    Tables t = tables_build(6, n_points, 4096, 12345u);
    double *dose = (double *)malloc(n_rays * sizeof(double));
    printf("materials %d, points %d, voxels %d, rays %d\n", t.n_materials, t.n_points,
           t.n_voxels, n_rays);
    double grand = 0.0, start = wall_seconds();
#pragma omp target data map(to: t.energy[0:t.len_energy], t.mu[0:t.len_mu], \
                                t.material_of[0:t.len_material_of], t.density[0:t.len_density])
    for (int step = 0; step < steps; step++) {
        double total = march_rays(t, dose, n_rays, step);
        double peak = 0.0;
        for (int r = 0; r < n_rays; r++)
            if (dose[r] > peak)
                peak = dose[r];
        printf("step %d total %.9f peak %.9f\n", step, total, peak);
        grand += total;
    }
    fprintf(stderr, "march: %.3f ms per step\n", (wall_seconds() - start) * 1e3 / steps);
    printf("checksum %.9f\n", grand);
    free(dose);
    tables_free(t);
    return 0;
}
