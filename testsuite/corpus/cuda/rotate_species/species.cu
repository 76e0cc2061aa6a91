// species.cu -- a carrier field diffused with a pair of rotating buffers (tmp = cur; cur =
// next; next = tmp), three species kept in an array of device pointers allocated, filled
// and freed in loops, reaction rates and diffusivity uploaded once; clock() timing.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define THREADS 128
typedef float real;
#include "species.h"

static void fill(real *h, int n, int seed)
{
    for (int i = 0; i < n; i++)
        h[i] = (real)((i * seed) % 17) * 0.125f;
}

int main(int argc, char **argv)
{
    RunInfo run;
    run.n = argc > 1 ? atoi(argv[1]) : 1000;
    run.steps = argc > 2 ? atoi(argv[2]) : 7;
    run.blocks = (run.n + THREADS - 1) / THREADS;
    int n = run.n;
    size_t bytes = n * sizeof(real);

    real *h_carrier = (real *)malloc(bytes);
    real *h_nu = (real *)malloc(bytes);
    real *h_species = (real *)malloc(NSPECIES * bytes);
    real *h_rates = (real *)malloc(2 * sizeof(real));
    fill(h_carrier, n, 7);
    for (int i = 0; i < n; i++)
        h_nu[i] = 0.05f + 0.1f * (real)(i % 3);
    for (int s = 0; s < NSPECIES; s++)
        fill(h_species + s * n, n, 3 + 2 * s);
    h_rates[0] = 0.02f;
    h_rates[1] = 0.01f;

    real *d_cur, *d_next, *d_nu, *d_rates;
    real *d_species[3];
    real *tmp;
    cudaMalloc((void **)&d_cur, bytes);
    cudaMalloc((void **)&d_next, bytes);
    cudaMalloc((void **)&d_nu, bytes);
    cudaMalloc((void **)&d_rates, 2 * sizeof(real));
    for (int s = 0; s < NSPECIES; s++) {
        cudaMalloc((void **)&d_species[s], bytes);
        cudaMemcpy(d_species[s], h_species + s * n, bytes, cudaMemcpyHostToDevice);
    }
    cudaMemcpy(d_cur, h_carrier, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_nu, h_nu, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_rates, h_rates, 2 * sizeof(real), cudaMemcpyHostToDevice);

    clock_t start = clock();
    for (int t = 0; t < run.steps; t++) {
        diffuse<<<run.blocks, THREADS>>>(d_cur, d_next, d_nu, n);
        tmp = d_cur;
        d_cur = d_next;
        d_next = tmp;
        feed<<<run.blocks, THREADS>>>(d_cur, d_species[0], 1.0f, n);
        react<<<run.blocks, THREADS>>>(d_species[0], d_species[1], d_species[2], d_rates, n);
    }
    cudaDeviceSynchronize();
    double ms = 1000.0 * (double)(clock() - start) / CLOCKS_PER_SEC;

    cudaMemcpy(h_carrier, d_cur, bytes, cudaMemcpyDeviceToHost);
    for (int s = 0; s < NSPECIES; s++)
        cudaMemcpy(h_species + s * n, d_species[s], bytes, cudaMemcpyDeviceToHost);

    double carrier = 0.0, total[NSPECIES] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++)
        carrier += h_carrier[i];
    for (int s = 0; s < NSPECIES; s++)
        for (int i = 0; i < n; i++)
            total[s] += h_species[s * n + i];
    printf("n = %d steps = %d\n", n, run.steps);
    printf("carrier sum = %.4f\n", carrier);
    for (int s = 0; s < NSPECIES; s++)
        printf("species %d sum = %.4f\n", s, total[s]);
    printf("Time: %.3f ms\n", ms);

    cudaFree(d_cur);
    cudaFree(d_next);
    cudaFree(d_nu);
    cudaFree(d_rates);
    for (int s = 0; s < NSPECIES; s++)
        cudaFree(d_species[s]);
    free(h_carrier);
    free(h_nu);
    free(h_species);
    free(h_rates);
    return 0;
}
