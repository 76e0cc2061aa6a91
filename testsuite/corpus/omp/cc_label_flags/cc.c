/*
 * cc.c -- connected components by min-label propagation.
 *
 * Each sweep runs two kernels: `propagate` takes the smallest label among a
 * node's neighbours, `commit` copies it back and raises the one-element
 * device flag `changed[0]` and counts the updated nodes in `updates[0]`.
 * The host resets both before the sweep and reads them after it.
 *
 * Usage: cc [num_nodes] [avg_degree] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include "graph.h"

#define MAX_SWEEPS 500

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40000;
    int degree = argc > 2 ? atoi(argv[2]) : 6;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 11u;
    csr_graph g;
    if (build_graph(&g, n, degree, seed) != 0)
        return 1;
    int nnz = g.num_edges;
    int *row_ptr = g.row_ptr;
    int *col_idx = g.col_idx;

    int *label = (int *)malloc(sizeof(int) * n);
    int *next = (int *)malloc(sizeof(int) * n);
    int *changed = (int *)malloc(sizeof(int));
    int *updates = (int *)malloc(sizeof(int));
    for (int i = 0; i < n; i++)
        label[i] = i;

    printf("graph: %d nodes, %d directed edges\n", n, nnz);
    double t0 = wall_time();
    int sweep = 0;
    long total_updates = 0;
    do {
        changed[0] = 0;
        updates[0] = 0;

#pragma omp target teams distribute parallel for \
        map(to: row_ptr[0:n + 1], col_idx[0:nnz], label[0:n]) map(from: next[0:n])
        for (int v = 0; v < n; v++) {
            int best = label[v];
            for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
                int l = label[col_idx[e]];
                if (l < best)
                    best = l;
            }
            next[v] = best;
        }

#pragma omp target teams distribute parallel for \
        map(to: next[0:n]) map(tofrom: label[0:n], changed[0:1], updates[0:1])
        for (int v = 0; v < n; v++) {
            if (next[v] != label[v]) {
                label[v] = next[v];
#pragma omp atomic write
                changed[0] = 1;
#pragma omp atomic update
                updates[0] += 1;
            }
        }

        total_updates += updates[0];
        sweep++;
        if (sweep % 4 == 0)
            printf("sweep %d: %d labels changed\n", sweep, updates[0]);
    } while (changed[0] && sweep < MAX_SWEEPS);
    double t1 = wall_time();

    int components = 0;
    long label_sum = 0;
    for (int i = 0; i < n; i++) {
        if (label[i] == i)
            components++;
        label_sum += label[i];
    }
    printf("converged after %d sweeps, %ld label updates\n", sweep, total_updates);
    printf("components: %d, label checksum: %ld\n", components, label_sum);
    fprintf(stderr, "label propagation: %.3f s\n", t1 - t0);

    free(label); free(next); free(changed); free(updates);
    free_graph(&g);
    return 0;
}
