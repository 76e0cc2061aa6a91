/* mesh.c -- the uniform mesh on [-0.5, 0.5]^2 */
#include <sys/time.h>
#include "jacobi.h"

void create_mesh(mesh_t *mesh, int nx, int ny)
{
    mesh->Nx = nx;
    mesh->Ny = ny;
    mesh->N = nx * ny;
    mesh->dx = 1.0 / (nx - 1);
    mesh->dy = 1.0 / (ny - 1);
}

double now_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, 0);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}
