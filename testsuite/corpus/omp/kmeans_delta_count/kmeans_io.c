/* kmeans_io.c -- checked allocations and a clustered synthetic data set */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "kmeans.h"

float *alloc_floats(int count)
{
    float *buf = (float *)malloc(count * sizeof(float));
    if (buf == NULL) {
        fprintf(stderr, "alloc_floats: %d elements\n", count);
        exit(EXIT_FAILURE);
    }
    return buf;
}

int *alloc_ints(int count, int value)
{
    int *buf = (int *)malloc(count * sizeof(int));
    if (!buf) {
        fprintf(stderr, "alloc_ints: %d elements\n", count);
        exit(EXIT_FAILURE);
    }
    for (int i = 0; i < count; i++)
        buf[i] = value;
    return buf;
}

void generate_points(float *points, int npoints, int nclusters, unsigned seed)
{
    for (int p = 0; p < npoints; p++) {
        int c = p % nclusters;
        for (int f = 0; f < NFEAT; f++) {
            seed = seed * 1664525u + 1013904223u;
            points[p * NFEAT + f] = (float)(c + f % 3) * 0.6f + (float)((seed >> 9) % 1000) / 250.0f;
        }
    }
}

double time_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1.0e-6;
}
