/* graph.h -- CSR graph used by the label-propagation driver */
#ifndef CC_GRAPH_H
#define CC_GRAPH_H

typedef struct {
    int num_nodes;
    int num_edges;
    int *row_ptr;   /* num_nodes + 1 */
    int *col_idx;   /* num_edges */
} csr_graph;

int build_graph(csr_graph *g, int num_nodes, int avg_degree, unsigned seed);
void free_graph(csr_graph *g);
double wall_time(void);

#endif
