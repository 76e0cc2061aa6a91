/* kernels.c -- the two device steps of one relaxation sweep */
#include <sys/time.h>
#include "sssp.h"

void relax_edges(int n, const int *row, const int *adj, const int *wgt, int *dist,
                 int *next, int *changed)
{
#pragma omp target teams distribute parallel for \
    map(to: row[0:n + 1], adj[0:row[n]], wgt[0:row[n]], dist[0:n]) map(from: next[0:n]) \
    map(tofrom: changed[0:1])
    for (int v = 0; v < n; v++) {
        int best = dist[v];
        for (int e = row[v]; e < row[v + 1]; e++) {
            int du = dist[adj[e]];
            if (du != INF_DIST && du + wgt[e] < best)
                best = du + wgt[e];
        }
        next[v] = best;
        if (best < dist[v]) {
#pragma omp atomic write
            changed[0] = 1;
        }
    }
}

void commit_distances(int n, int *dist, const int *next)
{
#pragma omp target teams distribute parallel for map(to: next[0:n]) map(tofrom: dist[0:n])
    for (int v = 0; v < n; v++)
        dist[v] = next[v];
}

double start_timer(void)
{
    struct timeval tv;
    gettimeofday(&tv, 0);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}

double elapsed_since(double start)
{
    return start_timer() - start;
}
