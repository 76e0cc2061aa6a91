// poisson.cu -- 1-D Poisson problem -u'' = f by damped Jacobi sweeps on the GPU. Device arrays
// come from the helpers of gpu_mem.h; copies are checked with if-statements; legacy
// cudaThreadSynchronize before the timer stops; sqrt/fabs in host code without <cmath>.
#include <ctime>
#include "gpu_mem.h"

#define BLOCK 128
typedef double real_t;
#include "poisson_kernels.cuh"

static double residual_norm(const double *u, const double *f, double h2, int n)
{
    double sum = 0.0;
    for (int i = 1; i < n - 1; i++) {
        double r = f[i] * h2 + u[i - 1] - 2.0 * u[i] + u[i + 1];
        sum += r * r;
    }
    return sqrt(sum);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int sweeps = argc > 2 ? atoi(argv[2]) : 40;
    double h = 1.0 / (n - 1), h2 = h * h;
    size_t bytes = n * sizeof(double);

    double *h_u = (double *)malloc(bytes);
    double *h_f = (double *)malloc(bytes);
    double *h_next = (double *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        double x = i * h;
        h_f[i] = 1.0 + x * (1.0 - x);
        h_u[i] = 0.0;
        h_next[i] = 0.0;
    }

    double *d_u, *d_next;
    d_u = gpu_alloc(n, "u");
    d_next = gpu_alloc(n, "u_next");
    double *d_f = gpu_alloc(n, "f");
    int *d_fixed = gpu_alloc_flags(n);

    if (cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "upload failed\n");
        return 1;
    }
    if (cudaMemcpy(d_next, h_next, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "upload failed\n");
        return 1;
    }
    if (cudaMemcpy(d_f, h_f, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "upload failed\n");
        return 1;
    }

    clock_t start = clock();
    int blocks = (n + BLOCK - 1) / BLOCK;
    mark_boundary<<<blocks, BLOCK>>>(d_fixed, n);
    for (int s = 0; s < sweeps; s++) {
        jacobi_sweep<<<blocks, BLOCK>>>(d_next, d_u, d_f, d_fixed, h2, 0.8, n);
        double *swap = d_u;
        d_u = d_next;
        d_next = swap;
    }
    cudaThreadSynchronize();
    clock_t stop = clock();

    if (cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "download failed\n");
        return 1;
    }
    printf("sweeps = %d, residual = %.6e, u(1/2) = %.8f\n", sweeps, residual_norm(h_u, h_f, h2, n),
           h_u[n / 2]);
    printf("Solver time: %.3f ms\n", 1000.0 * (stop - start) / CLOCKS_PER_SEC);

    cudaFree(d_u);
    cudaFree(d_next);
    cudaFree(d_f);
    cudaFree(d_fixed);
    free(h_u);
    free(h_f);
    free(h_next);
    return 0;
}
