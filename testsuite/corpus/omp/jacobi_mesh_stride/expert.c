/* expert.c -- (hand-mapped) Jacobi iterations for -lap(u) = f on a square, u = 0 on the boundary.
 *
 * Usage: jacobi [nx] [ny] [iterations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "jacobi.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 128;
    int ny = argc > 2 ? atoi(argv[2]) : 96;
    int iters = argc > 3 ? atoi(argv[3]) : 300;
    mesh_t mesh;
    create_mesh(&mesh, nx, ny);
    double *U = (double *)malloc(mesh.N * sizeof(double));
    double *AU = (double *)calloc(mesh.N, sizeof(double));
    double *RHS = (double *)malloc(mesh.N * sizeof(double));
    double *RES = (double *)calloc(mesh.N, sizeof(double));
    if (!U || !AU || !RHS || !RES) {
        fprintf(stderr, "jacobi: out of memory\n");
        return 1;
    }
    for (int j = 0; j < mesh.Ny; j++)
        for (int i = 0; i < mesh.Nx; i++) {
            double x = -0.5 + i * mesh.dx, y = -0.5 + j * mesh.dy;
            U[j * mesh.Nx + i] = 0.0;
            RHS[j * mesh.Nx + i] = sin(M_PI * (x + 0.5)) * (y + 0.5) * (y + 0.5);
        }
    const double inv_dx2 = 1.0 / (mesh.dx * mesh.dx), inv_dy2 = 1.0 / (mesh.dy * mesh.dy);
    const double factor = 1.0 / (2.0 * inv_dx2 + 2.0 * inv_dy2);

    double t0 = now_seconds();
    const int N = mesh.N;
#pragma omp target data map(to: RHS[0:N]) map(tofrom: U[0:N]) map(alloc: AU[0:N], RES[0:N])
    for (int it = 1; it <= iters; it++) {
        laplacian(&mesh, inv_dx2, inv_dy2, U, AU);
        update(&mesh, factor, U, RHS, AU, RES);
        if (it % 100 == 0)
            printf("iteration %4d: residual %.10e\n", it, norm(&mesh, RES));
    }
    double t1 = now_seconds();

    double sum = 0.0;
    for (int k = 0; k < mesh.N; k++)
        sum += U[k];
    printf("mesh %d x %d: sum(U) = %.10f, U[center] = %.10f\n", mesh.Nx, mesh.Ny, sum,
           U[(mesh.Ny / 2) * mesh.Nx + mesh.Nx / 2]);
    fprintf(stderr, "jacobi: %.3f s\n", t1 - t0);
    free(U); free(AU); free(RHS); free(RES);
    return 0;
}
