/* sssp.h -- Bellman-Ford style single-source shortest paths on a grid graph */
#ifndef SSSP_H
#define SSSP_H

#define INF_DIST 1000000000

void relax_edges(int n, const int *row, const int *adj, const int *wgt, int *dist,
                 int *next, int *changed);
void commit_distances(int n, int *dist, const int *next);
double elapsed_since(double start);
double start_timer(void);

#endif
