#include <stdio.h>
#include <stdlib.h>

#include "chain.h"

double simulate(int n, int steps, ChainParams p)
{
    double *conc[NSPEC];  /* concentration per species and cell */
    double *decayed[NSPEC]; /* amount that decays in one step */
    for (int s = 0; s < NSPEC; s++) {
        conc[s] = (double *)malloc(n * sizeof(double));
        decayed[s] = (double *)malloc(n * sizeof(double));
        if (conc[s] == NULL || decayed[s] == NULL) {
            fprintf(stderr, "simulate: out of memory for %d cells\n", n);
            exit(1);
        }
    }
    for (int s = 0; s < NSPEC; s++)
        seed_species(conc[s], n, s, 2024u + 17u * s);

    double checksum = 0.0;
    for (int step = 1; step <= steps; step++) {
        /* decay of every species (the stable one decays at rate 0) */
        for (int s = 0; s < NSPEC; s++) {
            double k = p.lambda[s] * p.dt;
#pragma omp target teams distribute parallel for map(to: conc, decayed, conc[s][0:n]) \
        map(from: decayed[s][0:n])
            for (int i = 0; i < n; i++)
                decayed[s][i] = k * conc[s][i];
        }
        /* each member gains what its parent lost */
#pragma omp target teams distribute parallel for \
        map(to: conc, decayed, decayed[0][0:n], decayed[1][0:n], decayed[2][0:n]) \
        map(tofrom: conc[0][0:n], conc[1][0:n], conc[2][0:n], conc[3][0:n])
        for (int i = 0; i < n; i++) {
            conc[0][i] -= decayed[0][i];
            conc[1][i] += decayed[0][i] - decayed[1][i];
            conc[2][i] += decayed[1][i] - decayed[2][i];
            conc[3][i] += decayed[2][i];
        }
        /* the parent is a gas: exchange with the neighbours (cells 1 .. n-2) */
        double mix = p.mix;
#pragma omp target teams distribute parallel for map(to: conc, decayed, conc[0][0:n]) \
        map(from: decayed[3][0:n])
        for (int i = 1; i < n - 1; i++)
            decayed[3][i] = conc[0][i] + mix * (conc[0][i - 1] - 2.0 * conc[0][i] + conc[0][i + 1]);
#pragma omp target teams distribute parallel for map(to: conc, decayed, decayed[3][0:n]) \
        map(tofrom: conc[0][0:n])
        for (int i = 1; i < n - 1; i++)
            conc[0][i] = decayed[3][i];

        if (step % REPORT_EVERY == 0 || step == steps) {
            double total[NSPEC];
            for (int s = 0; s < NSPEC; s++) {
                total[s] = 0.0;
                for (int i = 0; i < n; i++)
                    total[s] += conc[s][i];
            }
            printf("step %4d  A %.6e  B %.6e  C %.6e  D %.6e\n", step, total[0], total[1],
                   total[2], total[3]);
            checksum += total[0] + 2.0 * total[1] + 3.0 * total[2] + 4.0 * total[3];
        }
    }
    for (int s = 0; s < NSPEC; s++) {
        free(conc[s]);
        free(decayed[s]);
    }
    return checksum;
}
