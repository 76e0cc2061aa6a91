/* update.c -- residual and Jacobi update on the interior */
#include "jacobi.h"

void update(mesh_t *mesh, double factor, double *U, const double *RHS, const double *AU,
            double *RES)
{
    int N = mesh->N;
    int stride = mesh->Nx;
    int localNx = mesh->Nx - 2;
    int localNy = mesh->Ny - 2;
#pragma omp target teams distribute parallel for collapse(2) \
    map(to: RHS[0:N], AU[0:N]) map(tofrom: U[0:N], RES[0:N])
    for (int j = 0; j < localNy; j++) {
        for (int i = 0; i < localNx; i++) {
            const int id = (i + 1) + (j + 1) * stride;
            RES[id] = RHS[id] - AU[id];
            U[id] += factor * RES[id];
        }
    }
}
