/* norm.c -- the residual's 2-norm over the interior */
#include <math.h>
#include "jacobi.h"

double norm(mesh_t *mesh, const double *RES)
{
    int N = mesh->N;
    int stride = mesh->Nx;
    int localNx = mesh->Nx - 2;
    int localNy = mesh->Ny - 2;
    double sum = 0.0;
#pragma omp target teams distribute parallel for collapse(2) reduction(+: sum) map(to: RES[0:N])
    for (int j = 0; j < localNy; j++)
        for (int i = 0; i < localNx; i++) {
            const int id = (i + 1) + (j + 1) * stride;
            sum += RES[id] * RES[id];
        }
    return sqrt(sum * mesh->dx * mesh->dy);
}
