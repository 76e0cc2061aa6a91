/*
 * bfs_frontier.c -- level-synchronous breadth-first search on a CSR graph
 * (after Rodinia's bfs).
 *
 * Every level runs two kernels: the first expands the current frontier
 * (mask) into the neighbours that are not yet visited, the second turns
 * those into the next frontier and raises the device-written flag
 * `changed`.  The host loop `while (changed)` reads that flag after every
 * level; it also prints how many nodes each level added (a reduction).
 * Only at the end does the host look at the cost (BFS depth) of every node.
 *
 * Mapping style: naive.  Both kernels map every array they touch tofrom,
 * including the read-only graph, so each level moves the whole graph and
 * all the node arrays both ways although the host only needs one flag and
 * one counter per level.
 *
 * Usage: bfs_frontier [nodes] [source]
 */
#include <stdio.h>
#include <stdlib.h>

#define DEGREE 4

/* deterministic sparse graph: node i links to DEGREE pseudo-random nodes
 * plus its successor, stored in CSR form (row_ptr has n+1 entries) */
static int build_graph(int n, int *row_ptr, int *col_idx)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        row_ptr[i] = m;
        col_idx[m++] = (i + 1) % n;
        for (int k = 1; k < DEGREE; ++k) {
            long t = ((long)i * (2 * k + 7) + (long)k * k * 911 + (long)(i / 97) * 13) % n;
            col_idx[m++] = (int)t;
        }
    }
    row_ptr[n] = m;
    return m;
}

int main(int argc, char **argv)
{
    int n = 40000, source = 0;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) source = atoi(argv[2]);
    if (n < 16 || source < 0 || source >= n) {
        fprintf(stderr, "usage: %s [nodes>=16] [0<=source<nodes]\n", argv[0]);
        return 1;
    }

    const int m = n * DEGREE;
    int *row_ptr = (int *)malloc((size_t)(n + 1) * sizeof(int));
    int *col_idx = (int *)malloc((size_t)m * sizeof(int));
    int *mask = (int *)malloc((size_t)n * sizeof(int));       /* current frontier */
    int *updating = (int *)malloc((size_t)n * sizeof(int));   /* next frontier    */
    int *visited = (int *)malloc((size_t)n * sizeof(int));
    int *cost = (int *)malloc((size_t)n * sizeof(int));
    if (!row_ptr || !col_idx || !mask || !updating || !visited || !cost) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    build_graph(n, row_ptr, col_idx);

    for (int i = 0; i < n; ++i) {
        mask[i] = 0;
        updating[i] = 0;
        visited[i] = 0;
        cost[i] = -1;
    }
    mask[source] = 1;
    visited[source] = 1;
    cost[source] = 0;

    int level = 0;
    int changed = 1;
    while (changed) {
        changed = 0;
        int added = 0;

        /* expand the frontier; all writers of cost[id] store the same value */
        #pragma omp target teams distribute parallel for \
                map(tofrom: row_ptr[0:n+1], col_idx[0:m], mask[0:n], updating[0:n], \
                            visited[0:n], cost[0:n])
        for (int tid = 0; tid < n; ++tid) {
            if (mask[tid]) {
                mask[tid] = 0;
                for (int e = row_ptr[tid]; e < row_ptr[tid + 1]; ++e) {
                    int id = col_idx[e];
                    if (!visited[id]) {
                        cost[id] = cost[tid] + 1;
                        updating[id] = 1;
                    }
                }
            }
        }

        /* the next frontier; raise the flag the host loop tests */
        #pragma omp target teams distribute parallel for reduction(+:added) \
                map(tofrom: mask[0:n], updating[0:n], visited[0:n], changed)
        for (int tid = 0; tid < n; ++tid) {
            if (updating[tid]) {
                mask[tid] = 1;
                visited[tid] = 1;
                updating[tid] = 0;
                added += 1;
                #pragma omp atomic write
                changed = 1;
            }
        }

        ++level;
        printf("level %2d  new nodes %6d  flag %d\n", level, added, changed);
    }

    /* host summary of the BFS depths */
    int reached = 0, depth = 0;
    long total = 0;
    int per_depth[12] = {0};
    for (int i = 0; i < n; ++i) {
        if (cost[i] < 0)
            continue;
        ++reached;
        total += cost[i];
        if (cost[i] > depth)
            depth = cost[i];
        per_depth[cost[i] < 11 ? cost[i] : 11] += 1;
    }
    printf("bfs_frontier: n=%d m=%d source=%d levels=%d\n", n, m, source, level);
    printf("reached %d  max depth %d  sum of depths %ld\n", reached, depth, total);
    printf("nodes at depth 0..10, >=11:");
    for (int d = 0; d < 12; ++d)
        printf(" %d", per_depth[d]);
    printf("\ncost[1] = %d  cost[n/2] = %d  cost[n-1] = %d\n", cost[1], cost[n / 2], cost[n - 1]);

    free(row_ptr);
    free(col_idx);
    free(mask);
    free(updating);
    free(visited);
    free(cost);
    return 0;
}
