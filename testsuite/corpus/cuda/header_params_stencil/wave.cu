// wave.cu -- 1-D wave equation with a radius-2 stencil; the kernels live in a header that
// needs this file's definitions (RADIUS, value_t) and the Params struct.
#include <cstdio>
#include <cstdlib>
#include "stencil_params.h"

#define RADIUS 2
typedef float value_t;

#include "stencil_kernels.cuh"

int main(int argc, char **argv)
{
    Params p;
    p.n = argc > 1 ? atoi(argv[1]) : 800;
    p.alpha = 0.05f;
    p.beta = 0.999f;
    int steps = argc > 2 ? atoi(argv[2]) : 6;
    size_t bytes = p.n * sizeof(value_t);
    value_t *h = (value_t *)malloc(bytes);
    for (int i = 0; i < p.n; i++)
        h[i] = (i > p.n / 2 - 10 && i < p.n / 2 + 10) ? 1.0f : 0.0f;
    value_t *d_prev, *d_cur, *d_next;
    cudaMalloc((void **)&d_prev, bytes);
    cudaMalloc((void **)&d_cur, bytes);
    cudaMalloc((void **)&d_next, bytes);
    cudaMemcpy(d_prev, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_cur, h, bytes, cudaMemcpyHostToDevice);
    int threads = 128, blocks = (p.n + threads - 1) / threads;
    for (int s = 0; s < steps; s++) {
        wave_step<<<blocks, threads>>>(d_prev, d_cur, d_next, p);
        damp<<<blocks, threads>>>(d_next, p);
        value_t *t = d_prev;
        d_prev = d_cur;
        d_cur = d_next;
        d_next = t;
    }
    cudaMemcpy(h, d_cur, bytes, cudaMemcpyDeviceToHost);
    double energy = 0.0;
    for (int i = 0; i < p.n; i++)
        energy += h[i] * h[i];
    printf("n = %d steps = %d energy = %.8f mid = %.6f\n", p.n, steps, energy, h[p.n / 2]);
    cudaFree(d_prev);
    cudaFree(d_cur);
    cudaFree(d_next);
    free(h);
    return 0;
}
