/* Single-source shortest paths by repeated relaxation on a generated graph (a ring with
 * chords), in the layout of Rodinia's bfs: the kernels and the host driver are .cu files
 * this file includes as text.
 * usage: relax NODES [MAX_ITER] */
#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>

#define THREADS 128

typedef struct {
    int n, m;
    int *row_start;     /* in-edges of node v: row_start[v] .. row_start[v + 1] - 1 */
    int *sources;
    float *weight;
} Graph;

#include "relax_kernels.cu"
#include "relax_driver.cu"

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffu;
}

/* node v gets an edge from v - 1 (the ring) and two chords from pseudo-random nodes */
static void make_graph(Graph *g, int n)
{
    unsigned seed = 2024u;
    g->n = n;
    g->m = 3 * n;
    g->row_start = (int *)malloc(sizeof(int) * (n + 1));
    g->sources = (int *)malloc(sizeof(int) * g->m);
    g->weight = (float *)malloc(sizeof(float) * g->m);
    for (int v = 0; v < n; ++v) {
        g->row_start[v] = 3 * v;
        g->sources[3 * v] = (v + n - 1) % n;
        g->weight[3 * v] = 1.0f;
        for (int c = 1; c < 3; ++c) {
            g->sources[3 * v + c] = (int)(next_random(&seed) % (unsigned)n);
            g->weight[3 * v + c] = 2.0f + (float)(next_random(&seed) % 50u) * 0.25f;
        }
    }
    g->row_start[n] = g->m;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NODES [MAX_ITER]\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    int max_iter = argc > 2 ? atoi(argv[2]) : 1000;
    Graph g;
    make_graph(&g, n);
    float *dist = (float *)malloc(sizeof(float) * n);
    for (int v = 0; v < n; ++v)
        dist[v] = v == 0 ? 0.0f : 1e30f;
    double seconds = 0.0;
    int iterations = run_relax(&g, dist, max_iter, &seconds);
    double total = 0.0;
    float farthest = 0.0f;
    for (int v = 0; v < n; ++v) {
        total += dist[v];
        if (dist[v] > farthest)
            farthest = dist[v];
    }
    printf("iterations: %d\n", iterations);
    printf("sum of distances: %.2f, farthest: %.2f\n", total, farthest);
    printf("dist[%d] = %.2f, dist[%d] = %.2f\n", n / 3, dist[n / 3], n - 1, dist[n - 1]);
    printf("Compute time: %.4f s\n", seconds);
    free(dist);
    free(g.row_start);
    free(g.sources);
    free(g.weight);
    return 0;
}
