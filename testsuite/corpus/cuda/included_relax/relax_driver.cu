/* Host side of the relaxation, included as text by relax.cu after the Graph type and the
 * kernels; written in the style of older CUDA samples (spaced launch brackets, a cache
 * preference, clock() without <time.h>, which nvcc's own headers bring in). */

static int run_relax(const Graph *g, float *dist, int max_iter, double *seconds)
{
    int *d_row, *d_src, *d_changed;
    float *d_w, *d_dist, *d_next;
    size_t node_bytes = sizeof(float) * g->n;
    cudaMalloc((void **)&d_row, sizeof(int) * (g->n + 1));
    cudaMalloc((void **)&d_src, sizeof(int) * g->m);
    cudaMalloc((void **)&d_w, sizeof(float) * g->m);
    cudaMalloc((void **)&d_dist, node_bytes);
    cudaMalloc((void **)&d_next, node_bytes);
    cudaMalloc((void **)&d_changed, sizeof(int));
    cudaMemcpy(d_row, g->row_start, sizeof(int) * (g->n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(d_src, g->sources, sizeof(int) * g->m, cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, g->weight, sizeof(float) * g->m, cudaMemcpyHostToDevice);
    cudaMemcpy(d_dist, dist, node_bytes, cudaMemcpyHostToDevice);

    cudaFuncSetCacheConfig(relax_edges, cudaFuncCachePreferL1);

    dim3 grid((g->n + THREADS - 1) / THREADS);
    dim3 threads(THREADS);
    clock_t start = clock();
    int iterations = 0, changed;
    do {
        changed = 0;
        cudaMemcpy(d_changed, &changed, sizeof(int), cudaMemcpyHostToDevice);
        relax_edges << < grid, threads >> > (d_row, d_src, d_w, d_dist, d_next, g->n);
        commit << < grid, threads >> > (d_dist, d_next, d_changed, g->n);
        cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
        ++iterations;
    } while (changed && iterations < max_iter);
    cudaThreadSynchronize();
    *seconds = (double)(clock() - start) / CLOCKS_PER_SEC;

    cudaMemcpy(dist, d_dist, node_bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_row);
    cudaFree(d_src);
    cudaFree(d_w);
    cudaFree(d_dist);
    cudaFree(d_next);
    cudaFree(d_changed);
    return iterations;
}
