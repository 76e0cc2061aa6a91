/*
 * kde.c (expert mapping) -- Gaussian kernel density estimate of a weighted sample set on a
 * grid, then a few rounds of "mean shift": every sample moves towards the
 * weighted mean of its neighbourhood. The kernels live in functions taking
 * the SampleSet by pointer and read its scalar members (bandwidth, lo, step)
 * directly on the device.
 *
 * Usage: kde [samples] [bins] [rounds]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "samples.h"

static void estimate(SampleSet *S)
{
    const int n = S->n, bins = S->bins;
#pragma omp target teams distribute parallel for
    for (int b = 0; b < bins; b++) {
        double at = S->lo + b * S->step, sum = 0.0;
        for (int i = 0; i < n; i++) {
            double u = (at - S->x[i]) / S->bandwidth;
            sum += S->w[i] * exp(-0.5 * u * u);
        }
        S->density[b] = sum / (S->bandwidth * 2.5066282746310002);
    }
}

static void shift(SampleSet *S, double *moved)
{
    const int n = S->n;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
        double num = 0.0, den = 0.0;
        for (int j = 0; j < n; j++) {
            double u = (S->x[i] - S->x[j]) / S->bandwidth;
            double k = S->w[j] * exp(-0.5 * u * u);
            num += k * S->x[j];
            den += k;
        }
        moved[i] = fabs(num / den - S->x[i]);
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        S->x[i] += (S->x[i] < 1.5 ? 0.1 : -0.1) * moved[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    int bins = argc > 2 ? atoi(argv[2]) : 256;
    int rounds = argc > 3 ? atoi(argv[3]) : 6;
    SampleSet *S = sample_set_create(n, bins);
    double *moved = (double *)malloc(sizeof(double) * n);
    printf("kde: %d samples, %d bins, bandwidth %.6f\n", n, bins, S->bandwidth);

    double t0 = seconds();
    /* the scalar members the kernels read go with the arrays: the struct is mapped
       member by member, and an unnamed member is garbage on the device */
#pragma omp target enter data map(to: S->bandwidth, S->lo, S->step, S->x[0:n], S->w[0:n]) \
    map(alloc: S->density[0:bins], moved[0:n])
    for (int r = 0; r < rounds; r++) {
        estimate(S);
        int peak = 0;
#pragma omp target update from(S->density[0:bins])
        for (int b = 1; b < S->bins; b++)
            if (S->density[b] > S->density[peak])
                peak = b;
        printf("round %d: peak at %.4f (density %.6f)\n", r, S->lo + peak * S->step,
               S->density[peak]);
        shift(S, moved);
    }
    double t1 = seconds();
    estimate(S);
#pragma omp target update from(S->density[0:bins], S->x[0:n])
#pragma omp target exit data map(release: S->bandwidth, S->lo, S->step, S->x[0:n], S->w[0:n], \
    S->density[0:bins], moved[0:n])
    double mass = 0.0;
    for (int b = 0; b < S->bins; b++)
        mass += S->density[b] * S->step;
    printf("final mass %.6f, x[0] %.6f, x[%d] %.6f\n", mass, S->x[0], n - 1, S->x[n - 1]);
    fprintf(stderr, "kde: %.3f s cpu\n", t1 - t0);
    free(moved);
    sample_set_free(S);
    return 0;
}
