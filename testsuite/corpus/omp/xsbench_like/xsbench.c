/*
 * xsbench.c -- a macroscopic cross-section lookup kernel in the style of
 * XSBench's event-based OpenMP offload code: the nuclide grids and the
 * material tables live in a SimulationData struct of pointers that is
 * passed BY VALUE to run_event_based_simulation(), whose target region maps
 * the members it uses.  The simulation runs in several batches.
 *
 * Usage: xsbench [lookups] [gridpoints] [batches]
 */
#include <stdio.h>
#include <stdlib.h>

#define N_ISOTOPES 34
#define N_MATS 12
#define N_XS 5
#define STARTING_SEED 1070

typedef struct {
    int n_isotopes;
    int n_gridpoints;
    int lookups;
    int batches;
} Inputs;

typedef struct {
    int *num_nucs;        /* N_MATS */
    int *mats;            /* N_MATS * max_num_nucs */
    double *concs;        /* N_MATS * max_num_nucs */
    double *energy;       /* n_isotopes * n_gridpoints, sorted per isotope */
    double *xs;           /* n_isotopes * n_gridpoints * N_XS */
    int max_num_nucs;
    int length_num_nucs, length_mats, length_concs, length_energy, length_xs;
} SimulationData;

static unsigned long lcg(unsigned long *seed)
{
    *seed = (*seed * 2806196910506780709UL + 1UL);
    return *seed >> 11;
}

static SimulationData grid_init(Inputs in)
{
    SimulationData SD;
    unsigned long seed = 42;
    SD.length_energy = in.n_isotopes * in.n_gridpoints;
    SD.length_xs = SD.length_energy * N_XS;
    SD.energy = (double *)malloc(SD.length_energy * sizeof(double));
    SD.xs = (double *)malloc(SD.length_xs * sizeof(double));
    for (int iso = 0; iso < in.n_isotopes; iso++) {
        double e = 0.0;
        for (int g = 0; g < in.n_gridpoints; g++) {
            e += (1 + lcg(&seed) % 8) / 1024.0;
            SD.energy[iso * in.n_gridpoints + g] = e;
            for (int x = 0; x < N_XS; x++)
                SD.xs[(iso * in.n_gridpoints + g) * N_XS + x] = (lcg(&seed) % 256) / 64.0;
        }
    }
    SD.max_num_nucs = 0;
    SD.length_num_nucs = N_MATS;
    SD.num_nucs = (int *)malloc(N_MATS * sizeof(int));
    for (int m = 0; m < N_MATS; m++) {
        SD.num_nucs[m] = m == 0 ? N_ISOTOPES : 4 + (m * 5) % 23;
        if (SD.num_nucs[m] > SD.max_num_nucs)
            SD.max_num_nucs = SD.num_nucs[m];
    }
    SD.length_mats = SD.length_concs = N_MATS * SD.max_num_nucs;
    SD.mats = (int *)malloc(SD.length_mats * sizeof(int));
    SD.concs = (double *)malloc(SD.length_concs * sizeof(double));
    for (int m = 0; m < N_MATS; m++)
        for (int k = 0; k < SD.max_num_nucs; k++) {
            SD.mats[m * SD.max_num_nucs + k] = (int)((m * 7 + k * 11) % in.n_isotopes);
            SD.concs[m * SD.max_num_nucs + k] = (1 + (m + k) % 16) / 16.0;
        }
    return SD;
}

#pragma omp declare target
static long grid_search(int n, double quarry, const double *A)
{
    long lower = 0, upper = n - 1;
    while (upper - lower > 1) {
        long mid = lower + (upper - lower) / 2;
        if (A[mid] > quarry)
            upper = mid;
        else
            lower = mid;
    }
    return lower;
}
#pragma omp end declare target

static unsigned long run_event_based_simulation(Inputs in, SimulationData SD, int batch)
{
    int lookups = in.lookups;
    unsigned long *verification = (unsigned long *)malloc(lookups * sizeof(unsigned long));
    if (verification == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
#pragma omp target teams distribute parallel for \
        map(to: SD.max_num_nucs) \
        map(to: SD.num_nucs[0:SD.length_num_nucs], SD.mats[0:SD.length_mats], \
                SD.concs[0:SD.length_concs], SD.energy[0:SD.length_energy], SD.xs[0:SD.length_xs]) \
        map(from: verification[0:lookups])
    for (int i = 0; i < lookups; i++) {
        unsigned long seed = (unsigned long)(STARTING_SEED + batch * 1000003L + i) * 0x9E3779B97F4A7C15UL;
        seed ^= seed >> 29;
        double p_energy = (double)(seed % 4096) / 4096.0 * SD.energy[in.n_gridpoints - 2];
        int mat = (int)((seed >> 17) % N_MATS);
        double macro_xs[N_XS] = {0.0, 0.0, 0.0, 0.0, 0.0};
        for (int j = 0; j < SD.num_nucs[mat]; j++) {
            int nuc = SD.mats[mat * SD.max_num_nucs + j];
            double conc = SD.concs[mat * SD.max_num_nucs + j];
            const double *egrid = &SD.energy[nuc * in.n_gridpoints];
            long idx = grid_search(in.n_gridpoints, p_energy, egrid);
            if (idx >= in.n_gridpoints - 1)
                idx = in.n_gridpoints - 2;
            double f = (egrid[idx + 1] - p_energy) / (egrid[idx + 1] - egrid[idx]);
            for (int x = 0; x < N_XS; x++) {
                double lo = SD.xs[(nuc * in.n_gridpoints + idx) * N_XS + x];
                double hi = SD.xs[(nuc * in.n_gridpoints + idx + 1) * N_XS + x];
                macro_xs[x] += conc * (hi - f * (hi - lo));
            }
        }
        int max_idx = 0;
        double max_val = -1.0;
        for (int x = 0; x < N_XS; x++)
            if (macro_xs[x] > max_val) {
                max_val = macro_xs[x];
                max_idx = x;
            }
        verification[i] = (unsigned long)(max_idx + 1) * (unsigned long)(mat + 1);
    }
    unsigned long hash = 0;
    for (int i = 0; i < lookups; i++)
        hash += verification[i];
    free(verification);
    return hash;
}

int main(int argc, char **argv)
{
    Inputs in = {N_ISOTOPES, 2000, 50000, 4};
    if (argc > 1)
        in.lookups = atoi(argv[1]);
    if (argc > 2)
        in.n_gridpoints = atoi(argv[2]);
    if (argc > 3)
        in.batches = atoi(argv[3]);
    if (in.lookups < 1 || in.n_gridpoints < 4 || in.batches < 1) {
        fprintf(stderr, "usage: %s [lookups] [gridpoints>=4] [batches]\n", argv[0]);
        return 1;
    }
    SimulationData SD = grid_init(in);
    printf("isotopes %d, gridpoints %d, lookups %d x %d batches\n", in.n_isotopes, in.n_gridpoints,
           in.lookups, in.batches);
    unsigned long total = 0;
    for (int b = 0; b < in.batches; b++) {
        unsigned long h = run_event_based_simulation(in, SD, b);
        printf("batch %d verification %lu\n", b, h);
        total += h;
    }
    printf("Verification checksum: %lu\n", total);
    free(SD.energy);
    free(SD.xs);
    free(SD.num_nucs);
    free(SD.mats);
    free(SD.concs);
    return 0;
}
