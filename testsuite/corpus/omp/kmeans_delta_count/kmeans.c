/*
 * kmeans.c -- Lloyd's k-means.  A kernel assigns each point to its nearest
 * centroid and counts the points that changed cluster in delta[0]; the host
 * recomputes the centroids and loops while delta[0] is above a threshold.
 *
 * Usage: kmeans [npoints] [nclusters] [max_iters]
 */
#include <stdio.h>
#include <stdlib.h>
#include "kmeans.h"

int main(int argc, char **argv)
{
    int npoints, nclusters, max_iters;
    npoints = argc > 1 ? atoi(argv[1]) : 60000;
    nclusters = argc > 2 ? atoi(argv[2]) : 6;
    max_iters = argc > 3 ? atoi(argv[3]) : 50;

    float *points = alloc_floats(npoints * NFEAT);
    float *centroids = alloc_floats(nclusters * NFEAT);
    int *membership = alloc_ints(npoints, -1);
    int *delta = alloc_ints(1, 0);
    generate_points(points, npoints, nclusters, 2024u);
    for (int c = 0; c < nclusters; c++)
        for (int f = 0; f < NFEAT; f++)
            centroids[c * NFEAT + f] = points[(c * 7) * NFEAT + f];

    double t0 = time_now();
    int iter = 0;
    delta[0] = npoints;
    while (delta[0] > npoints / 1000 && iter < max_iters) {
        delta[0] = 0;
#pragma omp target teams distribute parallel for \
        map(to: points[0:npoints * NFEAT], centroids[0:nclusters * NFEAT]) \
        map(tofrom: membership[0:npoints], delta[0:1])
        for (int p = 0; p < npoints; p++) {
            int best = 0;
            float best_d = 3.0e38f;
            for (int c = 0; c < nclusters; c++) {
                float d = 0.0f;
                for (int f = 0; f < NFEAT; f++) {
                    float diff = points[p * NFEAT + f] - centroids[c * NFEAT + f];
                    d += diff * diff;
                }
                if (d < best_d) {
                    best_d = d;
                    best = c;
                }
            }
            if (membership[p] != best) {
                membership[p] = best;
#pragma omp atomic update
                delta[0] += 1;
            }
        }

        /* new centroids on the host */
        for (int i = 0; i < nclusters * NFEAT; i++)
            centroids[i] = 0.0f;
        int *count = alloc_ints(nclusters, 0);
        for (int p = 0; p < npoints; p++) {
            int c = membership[p];
            count[c]++;
            for (int f = 0; f < NFEAT; f++)
                centroids[c * NFEAT + f] += points[p * NFEAT + f];
        }
        for (int c = 0; c < nclusters; c++)
            for (int f = 0; f < NFEAT; f++)
                if (count[c] > 0)
                    centroids[c * NFEAT + f] /= count[c];
        free(count);
        iter++;
        printf("iteration %2d: %d points moved\n", iter, delta[0]);
    }
    double t1 = time_now();

    for (int c = 0; c < nclusters; c++)
        printf("centroid %d: %.4f %.4f %.4f\n", c, centroids[c * NFEAT], centroids[c * NFEAT + 1],
               centroids[c * NFEAT + 2]);
    fprintf(stderr, "kmeans: %d iterations, %.3f s\n", iter, t1 - t0);
    free(points);
    free(centroids);
    free(membership);
    free(delta);
    return 0;
}
