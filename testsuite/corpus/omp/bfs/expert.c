/*
 * bfs.c -- breadth-first search, structured like the Rodinia OpenMP port:
 * a Node array (first edge, edge count), an edge list, and three boolean
 * masks.  Each level runs two target regions; the second one raises the
 * `stop` flag that the host do/while loop tests.
 *
 * EXPERT mapping: the graph and the masks stay on the device for the whole
 * search; each level only the stop flag travels, and h_cost comes back once.
 *
 * Usage: bfs [num_nodes] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_EDGES 2
#define MAX_EDGES 6
#define MAX_LEVELS 64

typedef struct {
    int starting;
    int no_of_edges;
} Node;

static unsigned int rng_state = 1u;

static unsigned int next_rand(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) & 0xffffffu;
}

/* generate a random graph; returns the edge array and its length */
static int *generate_graph(Node *nodes, int no_of_nodes, int *edge_list_size)
{
    int capacity = no_of_nodes * MAX_EDGES;
    int *edges = (int *)malloc(capacity * sizeof(int));
    if (edges == NULL)
        return NULL;
    int total = 0;
    for (int i = 0; i < no_of_nodes; i++) {
        int degree = MIN_EDGES + (int)(next_rand() % (MAX_EDGES - MIN_EDGES + 1));
        nodes[i].starting = total;
        nodes[i].no_of_edges = degree;
        edges[total++] = (i + 1) % no_of_nodes;
        for (int e = 1; e < degree; e++)
            edges[total++] = (int)(next_rand() % (unsigned)no_of_nodes);
    }
    *edge_list_size = total;
    return edges;
}

int main(int argc, char **argv)
{
    int no_of_nodes = 20000;
    int edge_list_size = 0;
    int source = 0;
    if (argc > 1)
        no_of_nodes = atoi(argv[1]);
    if (argc > 2)
        rng_state = (unsigned)atoi(argv[2]);
    if (no_of_nodes < 2) {
        fprintf(stderr, "Usage: %s [num_nodes>=2] [seed]\n", argv[0]);
        return 1;
    }

    Node *h_graph_nodes = (Node *)malloc(sizeof(Node) * no_of_nodes);
    char *h_graph_mask = (char *)malloc(sizeof(char) * no_of_nodes);
    char *h_updating_graph_mask = (char *)malloc(sizeof(char) * no_of_nodes);
    char *h_graph_visited = (char *)malloc(sizeof(char) * no_of_nodes);
    int *h_cost = NULL;
    int *h_graph_edges = NULL;
    if (!h_graph_nodes || !h_graph_mask || !h_updating_graph_mask || !h_graph_visited) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }

    h_graph_edges = generate_graph(h_graph_nodes, no_of_nodes, &edge_list_size);
    if (h_graph_edges == NULL) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }
    memset(h_graph_mask, 0, no_of_nodes);
    memset(h_updating_graph_mask, 0, no_of_nodes);
    memset(h_graph_visited, 0, no_of_nodes);
    h_graph_mask[source] = 1;
    h_graph_visited[source] = 1;

    h_cost = (int *)malloc(sizeof(int) * no_of_nodes);
    for (int i = 0; i < no_of_nodes; i++)
        h_cost[i] = -1;
    h_cost[source] = 0;

    printf("Start traversing the tree (%d nodes, %d edges)\n", no_of_nodes, edge_list_size);
    int k = 0;
    char stop;
#pragma omp target data map(to: h_graph_nodes[0:no_of_nodes], h_graph_edges[0:edge_list_size], \
                                h_graph_mask[0:no_of_nodes], h_updating_graph_mask[0:no_of_nodes], \
                                h_graph_visited[0:no_of_nodes]) \
                        map(tofrom: h_cost[0:no_of_nodes])
    {
    do {
        stop = 0;

#pragma omp target teams distribute parallel for
        for (int tid = 0; tid < no_of_nodes; tid++) {
            if (h_graph_mask[tid] == 1) {
                h_graph_mask[tid] = 0;
                for (int i = h_graph_nodes[tid].starting;
                     i < (h_graph_nodes[tid].no_of_edges + h_graph_nodes[tid].starting); i++) {
                    int id = h_graph_edges[i];
                    if (!h_graph_visited[id]) {
                        h_cost[id] = h_cost[tid] + 1;
                        h_updating_graph_mask[id] = 1;
                    }
                }
            }
        }

#pragma omp target teams distribute parallel for map(tofrom: stop)
        for (int tid = 0; tid < no_of_nodes; tid++) {
            if (h_updating_graph_mask[tid] == 1) {
                h_graph_mask[tid] = 1;
                h_graph_visited[tid] = 1;
#pragma omp atomic write
                stop = 1;
                h_updating_graph_mask[tid] = 0;
            }
        }
        k++;
    } while (stop && k < MAX_LEVELS);
    }

    printf("Kernel executed %d times\n", k);

    /* verification: every reached node has a parent one level up */
    int reached = 0, max_cost = 0;
    long cost_sum = 0;
    for (int i = 0; i < no_of_nodes; i++) {
        if (h_cost[i] < 0)
            continue;
        reached++;
        cost_sum += h_cost[i];
        if (h_cost[i] > max_cost)
            max_cost = h_cost[i];
    }
    printf("reached %d of %d nodes, depth %d, sum of costs %ld\n", reached, no_of_nodes, max_cost,
           cost_sum);
    for (int i = 0; i < 8; i++)
        printf("%d) cost:%d\n", i, h_cost[i]);

    free(h_graph_nodes);
    free(h_graph_edges);
    free(h_graph_mask);
    free(h_updating_graph_mask);
    free(h_graph_visited);
    free(h_cost);
    return 0;
}
