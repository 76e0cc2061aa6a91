/* A four-member radioactive decay chain (A -> B -> C -> D, D stable) on a line of
 * cells, with a little transport of the parent between neighbouring cells.
 * Each species' concentrations live in their own array: the simulation keeps
 * them in arrays of pointers indexed by species. */
#ifndef CHAIN_H
#define CHAIN_H

#define NSPEC 4
#define REPORT_EVERY 10

typedef struct {
    double lambda[NSPEC]; /* decay constants per step, 1/s */
    double dt;
    double mix;           /* share of the parent exchanged with each neighbour */
} ChainParams;

/* chain.c */
ChainParams chain_params(double dt);
void seed_species(double *c, int n, int species, unsigned seed);
double wall_seconds(void);

/* simulate.c */
double simulate(int n, int steps, ChainParams p);

#endif
