#include <stdio.h>
#include <stdlib.h>

#include "tables.h"

static unsigned next_random(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static float *alloc_floats(long count)
{
    float *p = (float *)malloc(count * sizeof(float));
    if (p == NULL) {
        fprintf(stderr, "tables: cannot allocate %ld floats\n", count);
        exit(1);
    }
    return p;
}

Tables tables_build(int n_materials, int n_points, int n_voxels, unsigned seed)
{
    Tables t;
    t.n_materials = n_materials;
    t.n_points = n_points;
    t.n_voxels = n_voxels;
    t.len_energy = (long)n_materials * n_points;
    t.len_mu = t.len_energy * N_CHANNELS;
    t.len_material_of = n_voxels;
    t.len_density = n_voxels;
    t.energy = (double *)malloc(t.len_energy * sizeof(double));
    t.mu = (double *)malloc(t.len_mu * sizeof(double));
    t.material_of = (int *)malloc(t.len_material_of * sizeof(int));
    t.density = alloc_floats(t.len_density);
    if (t.energy == NULL || t.mu == NULL || t.material_of == NULL) {
        fprintf(stderr, "tables: out of memory\n");
        exit(1);
    }
    for (int m = 0; m < n_materials; m++) {
        double e = 0.01;
        for (int p = 0; p < n_points; p++) {
            e += (1 + next_random(&seed) % 16) / 512.0;
            t.energy[(long)m * n_points + p] = e;
            for (int c = 0; c < N_CHANNELS; c++)
                t.mu[((long)m * n_points + p) * N_CHANNELS + c] =
                    (1 + next_random(&seed) % 97) / (200.0 * (c + 1)) / e;
        }
    }
    for (int v = 0; v < n_voxels; v++) {
        t.material_of[v] = (int)(next_random(&seed) % n_materials);
        t.density[v] = 0.5f + (float)(next_random(&seed) % 64) / 32.0f;
    }
    return t;
}

void tables_free(Tables t)
{
    free(t.energy);
    free(t.mu);
    free(t.material_of);
    free(t.density);
}
