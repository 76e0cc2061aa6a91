/* Attenuation tables for a ray-marching dose estimate: per material, a sorted energy
 * grid and its attenuation coefficients, and a voxel -> material map. The struct holds
 * pointers and the lengths the builder sets beside them; it is passed by value. */
#ifndef TABLES_H
#define TABLES_H

#define N_CHANNELS 3

typedef struct {
    double *energy;      /* n_materials * n_points, sorted per material */
    double *mu;          /* n_materials * n_points * N_CHANNELS */
    int *material_of;    /* n_voxels */
    float *density;      /* n_voxels */
    long len_energy, len_mu, len_material_of, len_density;
    int n_materials, n_points, n_voxels;
} Tables;

Tables tables_build(int n_materials, int n_points, int n_voxels, unsigned seed);
void tables_free(Tables t);

/* transport.c */
double march_rays(Tables t, double *dose, int n_rays, int step);

#endif
