/* Material composition: how many nuclides each material holds, which ones, and in what
 * fraction. The row width of the member tables is the largest material. */
#include <stdio.h>
#include <stdlib.h>

#include "nuclide.h"

int *material_sizes(int n_isotopes)
{
    int *sizes = (int *)malloc(N_MATERIALS * sizeof(int));
    if (!sizes) {
        fprintf(stderr, "out of memory (material sizes)\n");
        exit(1);
    }
    for (int m = 0; m < N_MATERIALS; m++)
        sizes[m] = 2 + (m * 7 + 3) % (n_isotopes / 2);
    sizes[0] = n_isotopes / 2 + 1; /* the fuel holds the most */
    return sizes;
}

int *material_members(const int *sizes, int n_isotopes, int *widest)
{
    int materials = N_MATERIALS;
    *widest = 0;
    for (int m = 0; m < materials; m++)
        if (sizes[m] > *widest)
            *widest = sizes[m];
    int *members = (int *)malloc(materials * (*widest) * sizeof(int));
    if (!members) {
        fprintf(stderr, "out of memory (material members)\n");
        exit(1);
    }
    for (int m = 0; m < materials; m++)
        for (int k = 0; k < *widest; k++)
            members[m * *widest + k] = k < sizes[m] ? (m * 5 + k * 3) % n_isotopes : -1;
    return members;
}

double *material_fractions(const int *sizes, int widest, unsigned seed)
{
    double *frac = (double *)malloc(N_MATERIALS * widest * sizeof(double));
    if (!frac) {
        fprintf(stderr, "out of memory (material fractions)\n");
        exit(1);
    }
    for (int m = 0; m < N_MATERIALS; m++)
        for (int k = 0; k < widest; k++) {
            seed = seed * 1103515245u + 12345u;
            frac[m * widest + k] = k < sizes[m] ? 0.1 + (seed >> 16) % 1000 / 1000.0 : 0.0;
        }
    return frac;
}
