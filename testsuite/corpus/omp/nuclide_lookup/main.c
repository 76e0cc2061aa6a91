/* Cross-section lookups in batches (XSBench-like event mode).
 * Usage: nuclide [isotopes] [gridpoints] [lookups] [batches] [snapshot-in|-] [snapshot-out] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nuclide.h"

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int n_isotopes = argc > 1 ? atoi(argv[1]) : 60;
    int n_grid = argc > 2 ? atoi(argv[2]) : 2000;
    int lookups = argc > 3 ? atoi(argv[3]) : 40000;
    int batches = argc > 4 ? atoi(argv[4]) : 3;
    if (n_isotopes < 4 || n_grid < 2 || lookups < 1 || batches < 1) {
        fprintf(stderr, "usage: %s [isotopes>=4] [gridpoints>=2] [lookups] [batches] "
                "[snapshot-in] [snapshot-out]\n", argv[0]);
        return 1;
    }
    double start = wall_seconds();
    XSData xs = argc > 5 && strcmp(argv[5], "-") != 0 ? xs_restore(argv[5]) : xs_build(n_isotopes, n_grid, 2024u);
    fprintf(stderr, "setup: %.3f ms\n", (wall_seconds() - start) * 1e3);
    if (argc > 6 && xs_save(argv[6], xs) != 0)
        fprintf(stderr, "cannot write %s\n", argv[6]);
    printf("materials %d, widest %d, isotopes %d, gridpoints %d\n", xs.len_n_nuc, xs.widest,
           xs.n_isotopes, xs.n_grid);
    unsigned long *verify = (unsigned long *)malloc(lookups * sizeof(unsigned long));
    unsigned long checksum = 0;
    start = wall_seconds();
    for (int b = 0; b < batches; b++) {
        double sum = run_lookups(xs, verify, lookups, b);
        for (int i = 0; i < lookups; i++)
            checksum += verify[i];
        printf("batch %d sum %.6f\n", b, sum);
    }
    fprintf(stderr, "lookups: %.3f ms per batch\n", (wall_seconds() - start) * 1e3 / batches);
    printf("verification checksum %lu\n", checksum);
    free(verify);
    xs_free(xs);
    return 0;
}
