/*
 * main.c -- shortest paths from a corner of a weighted grid graph.  The host
 * loop runs sweeps until the device-set flag changed[0] stays down.
 *
 * Usage: sssp [side] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include "sssp.h"

int main(int argc, char **argv)
{
    int side = argc > 1 ? atoi(argv[1]) : 96;
    unsigned seed = argc > 2 ? (unsigned)atoi(argv[2]) : 3u;
    int n = side * side;
    int *row = malloc(sizeof(int) * (n + 1));
    int *adj = malloc(sizeof(int) * 4 * n);
    int *wgt = malloc(sizeof(int) * 4 * n);
    int *dist = malloc(sizeof(int) * n);
    int *next = malloc(sizeof(int) * n);
    int *changed = malloc(sizeof(int));

    int m = 0;
    for (int v = 0; v < n; v++) {
        int i = v % side, j = v / side;
        row[v] = m;
        int nb[4] = {j > 0 ? v - side : -1, i > 0 ? v - 1 : -1, i < side - 1 ? v + 1 : -1,
                     j < side - 1 ? v + side : -1};
        for (int k = 0; k < 4; k++) {
            if (nb[k] < 0)
                continue;
            seed = seed * 1664525u + 1013904223u;
            adj[m] = nb[k];
            wgt[m] = 1 + (int)((seed >> 20) % 9);
            m++;
        }
        dist[v] = INF_DIST;
    }
    row[n] = m;
    dist[0] = 0;

    double t = start_timer();
    int sweeps = 0;
    do {
        changed[0] = 0;
        relax_edges(n, row, adj, wgt, dist, next, changed);
        commit_distances(n, dist, next);
        sweeps++;
    } while (changed[0]);
    double secs = elapsed_since(t);

    long total = 0;
    int far = 0;
    for (int v = 0; v < n; v++) {
        total += dist[v];
        if (dist[v] > far)
            far = dist[v];
    }
    printf("%d nodes, %d edges, %d sweeps\n", n, m, sweeps);
    printf("farthest %d, sum of distances %ld, corner %d\n", far, total, dist[n - 1]);
    fprintf(stderr, "sssp: %.3f s\n", secs);
    free(row); free(adj); free(wgt); free(dist); free(next); free(changed);
    return 0;
}
