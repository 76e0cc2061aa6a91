/*
 * streamcluster.c -- the local-search core of a streaming k-median
 * clusterer (after Rodinia's streamcluster): for each candidate facility
 * the function pgain() evaluates, on the device, how much assigning points
 * to it would save.  pgain() is called many times from the search loop in
 * the caller; the point coordinates are allocated in the caller.
 *
 * EXPERT mapping: main keeps the points on the device for the whole search
 * (target data around the trial loop); pgain()'s maps find them present, and
 * only the gain scalar travels per call.  cost/assign come back once.
 *
 * Usage: streamcluster [points] [dim] [k] [trials]
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXK 64

typedef struct {
    int num;
    int dim;
    float *coord;   /* num * dim */
    float *weight;  /* num       */
    float *cost;    /* num: distance to the assigned center */
    int *assign;    /* num       */
} Points;

static float dist2(const float *a, const float *b, int dim)
{
    float d = 0.0f;
    for (int i = 0; i < dim; i++)
        d += (a[i] - b[i]) * (a[i] - b[i]);
    return d;
}

/* gain of opening point x as a new center: points that are closer to x
 * than to their current center move there */
static float pgain(int x, int num, int dim, const float *coord, const float *weight, float *cost,
                   int *assign, int apply)
{
    float gain = 0.0f;
    int total = num * dim;
#pragma omp target teams distribute parallel for reduction(+: gain) \
        map(to: coord[0:total], weight[0:num]) map(tofrom: cost[0:num], assign[0:num])
    for (int i = 0; i < num; i++) {
        float d = 0.0f;
        for (int j = 0; j < dim; j++) {
            float t = coord[i * dim + j] - coord[x * dim + j];
            d += t * t;
        }
        d *= weight[i];
        if (d < cost[i]) {
            gain += cost[i] - d;
            if (apply) {
                cost[i] = d;
                assign[i] = x;
            }
        }
    }
    return gain;
}

static void generate_points(Points *p, int num, int dim)
{
    size_t cbytes = (size_t)num * dim * sizeof(float);
    p->num = num;
    p->dim = dim;
    p->coord = (float *)malloc(cbytes);
    p->weight = (float *)malloc(num * sizeof(float));
    p->cost = (float *)malloc(num * sizeof(float));
    p->assign = (int *)malloc(num * sizeof(int));
    if (!p->coord || !p->weight || !p->cost || !p->assign) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int i = 0; i < num; i++) {
        int cluster = (i * 37) % 9;
        for (int j = 0; j < dim; j++)
            p->coord[i * dim + j] = (float)(cluster * 8 + ((i * 13 + j * 5) % 17)) / 16.0f;
        p->weight[i] = 1.0f;
    }
}

int main(int argc, char **argv)
{
    int num = 8192, dim = 16, kmax = 12, trials = 40;
    if (argc > 1) num = atoi(argv[1]);
    if (argc > 2) dim = atoi(argv[2]);
    if (argc > 3) kmax = atoi(argv[3]);
    if (argc > 4) trials = atoi(argv[4]);
    if (num < 2 || dim < 1 || kmax < 1 || kmax > MAXK) {
        fprintf(stderr, "usage: %s [points] [dim] [k<=%d] [trials]\n", argv[0], MAXK);
        return 1;
    }
    Points points;
    generate_points(&points, num, dim);
    float *coord = points.coord, *weight = points.weight, *cost = points.cost;
    int *assign = points.assign;

    /* start with point 0 as the only center */
    for (int i = 0; i < num; i++) {
        cost[i] = dist2(&coord[i * dim], &coord[0], dim) * weight[i];
        assign[i] = 0;
    }
    int centers[MAXK];
    int k = 1;
    centers[0] = 0;
    const float open_cost = 200.0f;
    unsigned int seed = 12345u;
#pragma omp target data map(to: coord[0:num * dim], weight[0:num]) map(tofrom: cost[0:num], assign[0:num])
    for (int t = 0; t < trials && k < kmax; t++) {
        seed = seed * 1664525u + 1013904223u;
        int x = (int)((seed >> 8) % (unsigned)num);
        float gain = pgain(x, num, dim, coord, weight, cost, assign, 0);
        if (gain > open_cost) {
            pgain(x, num, dim, coord, weight, cost, assign, 1);
            centers[k++] = x;
            printf("trial %2d: opened center %5d (gain %.1f)\n", t, x, gain);
        }
    }
    double total = 0.0;
    int counts[MAXK] = {0};
    for (int i = 0; i < num; i++) {
        total += cost[i];
        for (int c = 0; c < k; c++)
            if (centers[c] == assign[i])
                counts[c]++;
    }
    printf("%d centers, total cost %.3f\n", k, total);
    for (int c = 0; c < k; c++)
        printf("center %5d: %d points\n", centers[c], counts[c]);
    free(points.coord);
    free(points.weight);
    free(points.cost);
    free(points.assign);
    return 0;
}
