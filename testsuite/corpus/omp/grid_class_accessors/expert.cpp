// expert.cpp -- (hand-mapped) Jacobi relaxation of a Poisson problem on a Grid object; the kernels use
// the raw pointers the class's accessors return.
//
// Usage: poisson [nx] [ny] [iterations]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include "grid.hpp"

int main(int argc, char **argv)
{
    int nx = argc > 1 ? std::atoi(argv[1]) : 256;
    int ny = argc > 2 ? std::atoi(argv[2]) : 192;
    int iters = argc > 3 ? std::atoi(argv[3]) : 400;
    Grid g;
    g.allocate(nx, ny);
    fill_source(g, 2.5);
    double *u = g.u();
    double *un = g.u_next();
    double *f = g.source();
    const double h2 = 1.0 / ((double)(nx - 1) * (nx - 1));

    double t0 = wall_seconds();
    double diff = 0.0;
#pragma omp target data map(to: f[0:nx * ny]) map(tofrom: u[0:nx * ny]) map(alloc: un[0:nx * ny])
    for (int it = 1; it <= iters; it++) {
#pragma omp target teams distribute parallel for collapse(2)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++)
                un[j * nx + i] = 0.25 * (u[j * nx + i - 1] + u[j * nx + i + 1] +
                                         u[(j - 1) * nx + i] + u[(j + 1) * nx + i] +
                                         h2 * f[j * nx + i]);
        diff = 0.0;
#pragma omp target teams distribute parallel for collapse(2) reduction(max: diff)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                double d = std::fabs(un[j * nx + i] - u[j * nx + i]);
                diff = d > diff ? d : diff;
                u[j * nx + i] = un[j * nx + i];
            }
        if (it % 100 == 0)
            std::printf("iteration %4d: max change %.8e\n", it, diff);
    }
    double t1 = wall_seconds();

    double sum = 0.0;
    for (int k = 0; k < nx * ny; k++)
        sum += u[k];
    std::printf("grid %d x %d, sum(u) = %.10f, u[center] = %.10f\n", nx, ny, sum,
                u[(ny / 2) * nx + nx / 2]);
    std::fprintf(stderr, "poisson: %.3f s\n", t1 - t0);
    return 0;
}
