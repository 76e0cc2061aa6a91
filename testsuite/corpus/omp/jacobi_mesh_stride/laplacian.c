/* laplacian.c -- AU = A * U on the interior (5-point stencil); the row stride and the
 * interior sizes are locals read from the mesh */
#include "jacobi.h"

void laplacian(mesh_t *mesh, double inv_dx2, double inv_dy2, const double *U, double *AU)
{
    int N = mesh->N;
    int stride = mesh->Nx;
    int localNx = mesh->Nx - 2;
    int localNy = mesh->Ny - 2;
#pragma omp target teams distribute parallel for collapse(2) map(to: U[0:N]) map(tofrom: AU[0:N])
    for (int j = 0; j < localNy; j++) {
        for (int i = 0; i < localNx; i++) {
            const int id = (i + 1) + (j + 1) * stride;
            const int id_l = id - 1;
            const int id_r = id + 1;
            const int id_d = id - stride;
            const int id_u = id + stride;
            AU[id] = (-U[id_l] + 2.0 * U[id] - U[id_r]) * inv_dx2 +
                     (-U[id_d] + 2.0 * U[id] - U[id_u]) * inv_dy2;
        }
    }
}
