/* Cross-section lookup tables: one struct of flat arrays with their lengths beside them,
 * built in setup.c (or restored from a snapshot) and passed by value to the lookups. */
#ifndef NUCLIDE_H
#define NUCLIDE_H

#define N_MATERIALS 8

typedef struct {
    int *n_nuc;         /* nuclides in each material */
    int *mat_nuc;       /* nuclide ids, material-major, rows of 'widest' */
    double *frac;       /* their fractions, same layout */
    double *egrid;      /* energy grid of every nuclide, n_isotopes x n_grid */
    int len_n_nuc, len_mat_nuc, len_frac, len_egrid;
    int widest, n_isotopes, n_grid;
} XSData;

/* materials.c */
int *material_sizes(int n_isotopes);
int *material_members(const int *sizes, int n_isotopes, int *widest);
double *material_fractions(const int *sizes, int widest, unsigned seed);

/* setup.c */
XSData xs_build(int n_isotopes, int n_grid, unsigned seed);
int xs_save(const char *path, XSData xs);
XSData xs_restore(const char *path);
void xs_free(XSData xs);

/* lookup.c */
double run_lookups(XSData xs, unsigned long *verify, int lookups, int batch);

#endif
