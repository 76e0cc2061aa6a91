/* kmeans.h -- points, centroids and helpers for the k-means driver */
#ifndef KMEANS_H
#define KMEANS_H

#define NFEAT 8

float *alloc_floats(int count);
int *alloc_ints(int count, int value);
void generate_points(float *points, int npoints, int nclusters, unsigned seed);
double time_now(void);

#endif
