/* samples.c -- builds the sample set: a two-bump mixture from a fixed LCG */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "samples.h"

static double *checked_doubles(int count, const char *what)
{
    double *p = (double *)malloc(sizeof(double) * (size_t)count);
    if (p == NULL) {
        fprintf(stderr, "samples: cannot allocate %d doubles for %s\n", count, what);
        exit(1);
    }
    return p;
}

static double uniform(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

SampleSet *sample_set_create(int n, int bins)
{
    SampleSet *s = (SampleSet *)malloc(sizeof(SampleSet));
    if (s == NULL) {
        fprintf(stderr, "samples: out of memory\n");
        exit(1);
    }
    s->n = n;
    s->bins = bins;
    s->x = checked_doubles(n, "x");
    s->w = checked_doubles(n, "w");
    s->density = checked_doubles(bins, "density");
    unsigned state = 2024u;
    double mean = 0.0, sq = 0.0;
    for (int i = 0; i < n; i++) {
        double u = uniform(&state) + uniform(&state) + uniform(&state);
        s->x[i] = (i % 3 == 0) ? 4.0 + u : u - 1.5;
        s->w[i] = 0.5 + 0.5 * uniform(&state);
        mean += s->x[i];
        sq += s->x[i] * s->x[i];
    }
    mean /= n;
    double sigma = sqrt(sq / n - mean * mean);
    s->bandwidth = 1.06 * sigma * pow((double)n, -0.2);
    s->lo = -4.0;
    s->step = 12.0 / (bins - 1);
    return s;
}

void sample_set_free(SampleSet *s)
{
    free(s->x);
    free(s->w);
    free(s->density);
    free(s);
}

double seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}
