/* graph.c -- random undirected graph with a few disjoint components */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "graph.h"

static unsigned lcg(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 9;
}

double wall_time(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

int build_graph(csr_graph *g, int num_nodes, int avg_degree, unsigned seed)
{
    int block = num_nodes / 8 + 1;      /* edges stay inside blocks: >= 8 components */
    int *deg = (int *)calloc(num_nodes, sizeof(int));
    int *src = (int *)malloc(sizeof(int) * num_nodes * avg_degree);
    int *dst = (int *)malloc(sizeof(int) * num_nodes * avg_degree);
    if (!deg || !src || !dst) {
        fprintf(stderr, "build_graph: out of memory\n");
        return -1;
    }
    int m = 0;
    for (int i = 0; i < num_nodes; i++) {
        for (int k = 0; k < avg_degree / 2; k++) {
            int base = (i / block) * block;
            int j = base + (int)(lcg(&seed) % (unsigned)block);
            if (j >= num_nodes || j == i)
                continue;
            src[m] = i; dst[m] = j; m++;
            src[m] = j; dst[m] = i; m++;
            deg[i]++; deg[j]++;
        }
    }
    g->num_nodes = num_nodes;
    g->num_edges = m;
    g->row_ptr = (int *)malloc(sizeof(int) * (num_nodes + 1));
    g->col_idx = (int *)malloc(sizeof(int) * (m > 0 ? m : 1));
    g->row_ptr[0] = 0;
    for (int i = 0; i < num_nodes; i++)
        g->row_ptr[i + 1] = g->row_ptr[i] + deg[i];
    for (int i = 0; i < num_nodes; i++)
        deg[i] = g->row_ptr[i];
    for (int e = 0; e < m; e++)
        g->col_idx[deg[src[e]]++] = dst[e];
    free(deg); free(src); free(dst);
    return 0;
}

void free_graph(csr_graph *g)
{
    free(g->row_ptr);
    free(g->col_idx);
}
