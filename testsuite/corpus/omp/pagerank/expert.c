/*
 * pagerank.c -- power-iteration PageRank over a generated web graph stored
 * as incoming-edge CSR (pull style).  Each iteration computes the new ranks
 * on the device, then a second kernel reduces the L1 change and copies the
 * new ranks over the old; the host stops when the change is small.
 *
 * EXPERT mapping: graph and rank vectors stay on the device for all
 * iterations; only the reduced change travels per iteration, rank comes
 * back at the end.
 *
 * Usage: pagerank [pages] [max_iterations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DAMPING 0.85
#define TOLERANCE 1.0e-7
#define LINKS_PER_PAGE 6

typedef struct {
    int n, nnz;
    int *in_ptr;   /* n + 1 */
    int *in_src;   /* nnz  */
    int *out_deg;  /* n    */
} Graph;

static int make_graph(Graph *g, int n)
{
    g->n = n;
    g->nnz = n * LINKS_PER_PAGE;
    g->in_ptr = (int *)malloc((n + 1) * sizeof(int));
    g->in_src = (int *)malloc(g->nnz * sizeof(int));
    g->out_deg = (int *)calloc(n, sizeof(int));
    if (!g->in_ptr || !g->in_src || !g->out_deg)
        return -1;
    int e = 0;
    for (int dst = 0; dst < n; dst++) {
        g->in_ptr[dst] = e;
        for (int k = 0; k < LINKS_PER_PAGE; k++) {
            /* popular pages (small ids) get more links */
            long src = ((long)dst * 7919 + (long)k * k * 104729 + k) % n;
            if (k % 2 == 1)
                src = src % (n / 8 + 1);
            g->in_src[e++] = (int)src;
            g->out_deg[src]++;
        }
    }
    g->in_ptr[n] = e;
    return 0;
}

int main(int argc, char **argv)
{
    int n = 30000, max_iter = 100;
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        max_iter = atoi(argv[2]);
    Graph g;
    if (n < 16 || make_graph(&g, n) != 0) {
        fprintf(stderr, "usage: %s [pages>=16] [max_iterations]\n", argv[0]);
        return 1;
    }
    int nnz = g.nnz;
    int *in_ptr = g.in_ptr, *in_src = g.in_src, *out_deg = g.out_deg;
    size_t bytes = (size_t)n * sizeof(double);
    double *rank = (double *)malloc(bytes);
    double *next = (double *)malloc(bytes);
    double *contrib = NULL;
    contrib = (double *)malloc(bytes);
    for (int i = 0; i < n; i++)
        rank[i] = 1.0 / n;

    int iter = 0;
    double err = 1.0;
#pragma omp target data map(to: in_ptr[0:n + 1], in_src[0:nnz], out_deg[0:n]) \
                        map(tofrom: rank[0:n]) map(alloc: next[0:n], contrib[0:n])
    while (iter < max_iter) {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            contrib[i] = out_deg[i] > 0 ? rank[i] / out_deg[i] : 0.0;

#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++) {
            double sum = 0.0;
            for (int e = in_ptr[i]; e < in_ptr[i + 1]; e++)
                sum += contrib[in_src[e]];
            next[i] = (1.0 - DAMPING) / n + DAMPING * sum;
        }

        err = 0.0;
#pragma omp target teams distribute parallel for reduction(+: err)
        for (int i = 0; i < n; i++) {
            err += fabs(next[i] - rank[i]);
            rank[i] = next[i];
        }
        iter++;
        if (iter % 10 == 0)
            printf("iteration %3d  change %.3e\n", iter, err);
        if (err < TOLERANCE)
            break;
    }
    printf("converged after %d iterations\n", iter);

    int best = 0;
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        total += rank[i];
        if (rank[i] > rank[best])
            best = i;
    }
    printf("sum of ranks %.8f  top page %d rank %.8e\n", total, best, rank[best]);
    printf("rank[1] %.8e  rank[n-1] %.8e\n", rank[1], rank[n - 1]);
    free(rank);
    free(next);
    free(contrib);
    free(g.in_ptr);
    free(g.in_src);
    free(g.out_deg);
    return 0;
}
