/* The lookup kernel: random (energy, material) pairs, the macroscopic cross section of
 * each from a binary search on every nuclide's grid of the material. */
#include "nuclide.h"

#pragma omp declare target
static int grid_index(double *egrid, int n_grid, double e)
{
    int lo = 0, hi = n_grid - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (egrid[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static double macro_xs(double e, int mat, int *n_nuc, int *mat_nuc, double *frac,
                       double *egrid, int n_grid, int widest)
{
    double total = 0.0;
    for (int k = 0; k < n_nuc[mat]; k++) {
        int nuc = mat_nuc[mat * widest + k];
        double *grid = &egrid[nuc * n_grid];
        int g = grid_index(grid, n_grid, e);
        double f = (e - grid[g]) / (grid[g + 1] - grid[g] + 1e-12);
        total += frac[mat * widest + k] * (1.0 + 0.5 * f + 0.01 * g);
    }
    return total;
}
#pragma omp end declare target

double run_lookups(XSData xs, unsigned long *verify, int lookups, int batch)
{
    double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) \
        map(to: xs.n_nuc[0:xs.len_n_nuc], xs.mat_nuc[0:xs.len_mat_nuc], \
                xs.frac[0:xs.len_frac], xs.egrid[0:xs.len_egrid], xs.n_grid, xs.widest) \
        map(from: verify[0:lookups])
    for (int i = 0; i < lookups; i++) {
        unsigned h = (unsigned)(i + 1) * 2654435761u ^ (unsigned)batch * 97u;
        int mat = (int)(h % N_MATERIALS);
        double top = xs.egrid[xs.n_grid - 1];
        double e = (h >> 8) % 100000 / 100000.0 * top;
        double v = macro_xs(e, mat, xs.n_nuc, xs.mat_nuc, xs.frac, xs.egrid, xs.n_grid,
                            xs.widest);
        verify[i] = (unsigned long)(v * 1000.0) % 997;
        sum += v;
    }
    return sum;
}
