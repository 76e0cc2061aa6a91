/* Kernels of the shortest-path relaxation, included as text by relax.cu (THREADS comes from
 * there). */
#ifndef RELAX_KERNELS_CU
#define RELAX_KERNELS_CU

/* pull step: each node takes the best of its own distance and its in-edges' offers */
__global__ void relax_edges(const int *row_start, const int *sources, const float *weight,
                            const float *dist, float *next, int n)
{
    int v = blockIdx.x * THREADS + threadIdx.x;
    if (v >= n)
        return;
    float best = dist[v];
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        float offer = dist[sources[e]] + weight[e];
        if (offer < best)
            best = offer;
    }
    next[v] = best;
}

/* keep the improvements and raise the flag the host polls */
__global__ void commit(float *dist, const float *next, int *changed, int n)
{
    int v = blockIdx.x * THREADS + threadIdx.x;
    if (v < n && next[v] < dist[v]) {
        dist[v] = next[v];
        *changed = 1;
    }
}

#endif
