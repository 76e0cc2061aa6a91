/* Decay chain on a line of cells.  Usage: chain [cells] [steps] */
#include <stdio.h>
#include <stdlib.h>

#include "chain.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    int steps = argc > 2 ? atoi(argv[2]) : 40;
    if (n < 3 || steps < 1) {
        fprintf(stderr, "usage: %s [cells>=3] [steps>=1]\n", argv[0]);
        return 1;
    }
    ChainParams p = chain_params(1.0);
    printf("decay chain: %d species, %d cells, %d steps\n", NSPEC, n, steps);
    double start = wall_seconds();
    double checksum = simulate(n, steps, p);
    fprintf(stderr, "simulate: %.3f ms\n", (wall_seconds() - start) * 1e3);
    printf("checksum %.9e\n", checksum);
    return 0;
}
