/* Building the lookup tables, and a binary snapshot of them (written once, read back
 * instead of building when a path is given). */
#include <stdio.h>
#include <stdlib.h>

#include "nuclide.h"

XSData xs_build(int n_isotopes, int n_grid, unsigned seed)
{
    XSData xs;
    xs.n_isotopes = n_isotopes;
    xs.n_grid = n_grid;

    xs.len_egrid = n_isotopes * n_grid;
    xs.egrid = (double *)malloc(xs.len_egrid * sizeof(double));
    for (int i = 0; i < n_isotopes; i++) {
        double e = 0.0;
        for (int g = 0; g < n_grid; g++) {
            seed = seed * 1664525u + 1013904223u;
            e += 1e-3 + (seed >> 12) % 4096 / 4096.0;
            xs.egrid[i * n_grid + g] = e;
        }
    }

    xs.n_nuc = material_sizes(n_isotopes);
    xs.len_n_nuc = N_MATERIALS;

    /* the member tables are full rectangles of the widest material */
    xs.mat_nuc = material_members(xs.n_nuc, n_isotopes, &xs.widest);
    xs.len_mat_nuc = xs.len_n_nuc * xs.widest;

    xs.frac = material_fractions(xs.n_nuc, xs.widest, seed);
    xs.len_frac = xs.len_mat_nuc;
    return xs;
}

int xs_save(const char *path, XSData xs)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    fwrite(&xs, sizeof(XSData), 1, fp);
    fwrite(xs.n_nuc, sizeof(int), xs.len_n_nuc, fp);
    fwrite(xs.mat_nuc, sizeof(int), xs.len_mat_nuc, fp);
    fwrite(xs.frac, sizeof(double), xs.len_frac, fp);
    fwrite(xs.egrid, sizeof(double), xs.len_egrid, fp);
    fclose(fp);
    return 0;
}

XSData xs_restore(const char *path)
{
    XSData xs;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    /* the lengths come with the struct; its pointers are stale and replaced */
    if (fread(&xs, sizeof(XSData), 1, fp) != 1) {
        fprintf(stderr, "short snapshot %s\n", path);
        exit(1);
    }
    xs.n_nuc = (int *)malloc(xs.len_n_nuc * sizeof(int));
    xs.mat_nuc = (int *)malloc(xs.len_mat_nuc * sizeof(int));
    xs.frac = (double *)malloc(xs.len_frac * sizeof(double));
    xs.egrid = (double *)malloc(xs.len_egrid * sizeof(double));
    size_t got = fread(xs.n_nuc, sizeof(int), xs.len_n_nuc, fp);
    got += fread(xs.mat_nuc, sizeof(int), xs.len_mat_nuc, fp);
    got += fread(xs.frac, sizeof(double), xs.len_frac, fp);
    got += fread(xs.egrid, sizeof(double), xs.len_egrid, fp);
    fclose(fp);
    if (got != (size_t)(xs.len_n_nuc + xs.len_mat_nuc + xs.len_frac + xs.len_egrid)) {
        fprintf(stderr, "short snapshot %s\n", path);
        exit(1);
    }
    return xs;
}

void xs_free(XSData xs)
{
    free(xs.n_nuc);
    free(xs.mat_nuc);
    free(xs.frac);
    free(xs.egrid);
}
