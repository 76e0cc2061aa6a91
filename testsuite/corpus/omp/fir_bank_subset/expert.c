/*
 * fir.c -- filters blocks of a signal with the first filter of a bank.  The
 * whole bank (4096 coefficients) is loaded, as the library that designs it
 * hands it over, but this run uses filter 0 only (256 taps).
 *
 * Usage: fir [block] [blocks]
 */
#include <stdio.h>
#include <stdlib.h>
#include "bank.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 65536;
    int blocks = argc > 2 ? atoi(argv[2]) : 16;
    float *taps = malloc(4096 * sizeof(float));
    float *x = malloc((n + 255) * sizeof(float));
    float *y = malloc(n * sizeof(float));
    design_bank(taps);

    double t0 = tick();
    double energy = 0.0;
#pragma omp target data map(to: taps[0:256]) map(alloc: x[0:n + 255], y[0:n])
    for (int b = 0; b < blocks; b++) {
        make_signal(x, n + 255);
        x[b] += 1.0f;  /* an impulse per block */
#pragma omp target update to(x[0:n + 255])

#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int k = 0; k < 256; k++)
                acc += taps[k] * x[i + k];
            y[i] = acc;
        }

        double e = 0.0;
#pragma omp target teams distribute parallel for reduction(+: e)
        for (int i = 0; i < n; i++)
            e += (double)y[i] * y[i];
        energy += e;
#pragma omp target update from(y[b:1])
        printf("block %2d: energy %.6f, y[%d] = %.6f\n", b, e, b, y[b]);
    }
    double t1 = tick();
    printf("total energy %.6f\n", energy);
    fprintf(stderr, "fir: %.3f s\n", t1 - t0);
    free(taps);
    free(x);
    free(y);
    return 0;
}
