// relax.cu -- weighted Jacobi relaxation of a 2-D grid with fixed hot borders; two buffers
// swapped every sweep, the largest change measured every `check` sweeps.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

#include "grid.h"

typedef float real;
#define TILE_X 16
#define TILE_Y 8
#define IX(x, y) ((y) * nx + (x))
#define CUDA_CHECK(call) check_cuda((call), #call, __LINE__)

#include "jacobi_kernels.cuh"

static void check_cuda(cudaError_t err, const char *what, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(err));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    Grid g;
    g.nx = argc > 1 ? atoi(argv[1]) : 96;
    g.ny = argc > 2 ? atoi(argv[2]) : 64;
    int sweeps = argc > 3 ? atoi(argv[3]) : 40;
    int check = argc > 4 ? atoi(argv[4]) : 10;
    int nx = g.nx, ny = g.ny;
    int cells = grid_cells(g);
    size_t bytes = cells * sizeof(real);

    real *h_grid = (real *)malloc(bytes), *h_diff = (real *)malloc(bytes);
    for (int y = 0; y < g.ny; y++)
        for (int x = 0; x < g.nx; x++)
            h_grid[IX(x, y)] = (x == 0 || y == 0 || x == g.nx - 1 || y == g.ny - 1) ? 1.0f : 0.0f;

    real weights[2] = {0.2f, 0.2f};
    CUDA_CHECK(cudaMemcpyToSymbol(stencil_weights, weights, sizeof(weights)));

    real *d_a, *d_b, *d_diff;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_diff, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_grid, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_grid, bytes, cudaMemcpyHostToDevice));

    dim3 block(TILE_X, TILE_Y);
    dim3 grid((g.nx + TILE_X - 1) / TILE_X, (g.ny + TILE_Y - 1) / TILE_Y);
    clock_t start = clock();
    for (int s = 1; s <= sweeps; s++) {
        relax<<<grid, block>>>(nx, ny, d_a, d_b);
        real *t = d_a;
        d_a = d_b;
        d_b = t;
        if (s % check == 0) {
            residual<<<grid, block>>>(nx, ny, d_a, d_b, d_diff);
            CUDA_CHECK(cudaMemcpy(h_diff, d_diff, bytes, cudaMemcpyDeviceToHost));
            real worst = 0;
            for (int i = 0; i < cells; i++)
                worst = h_diff[i] > worst ? h_diff[i] : worst;
            printf("sweep %3d  max change %.6e\n", s, worst);
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("Elapsed: %.2f ms\n", 1000.0 * (clock() - start) / CLOCKS_PER_SEC);

    CUDA_CHECK(cudaMemcpy(h_grid, d_a, bytes, cudaMemcpyDeviceToHost));
    double total = 0;
    for (int i = 0; i < cells; i++)
        total += h_grid[i];
    printf("mean %.6f  centre %.6f\n", total / cells, h_grid[IX(g.nx / 2, g.ny / 2)]);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_diff);
    free(h_grid);
    free(h_diff);
    return 0;
}
