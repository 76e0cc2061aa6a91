#include <stdio.h>
#include <time.h>

#include "chain.h"

ChainParams chain_params(double dt)
{
    ChainParams p;
    /* half-lives of 40, 90 and 300 steps; the last member is stable */
    p.lambda[0] = 0.693147 / 40.0;
    p.lambda[1] = 0.693147 / 90.0;
    p.lambda[2] = 0.693147 / 300.0;
    p.lambda[3] = 0.0;
    p.dt = dt;
    p.mix = 0.05;
    return p;
}

/* Initial inventory: only the parent is present, with a bump in the middle;
 * daughters start at a trace level. */
void seed_species(double *c, int n, int species, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double noise = (double)((seed >> 16) & 0x7fff) / 32768.0;
        if (species == 0)
            c[i] = 1.0 + 0.5 * noise + (i > n / 3 && i < 2 * n / 3 ? 2.0 : 0.0);
        else
            c[i] = 1e-3 * noise;
    }
}

double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
