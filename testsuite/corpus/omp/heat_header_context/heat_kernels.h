/* heat_kernels.h -- the solver's device kernels.
 *
 * Not a stand-alone header: solver.c includes it after defining the element type
 * real_t, the diffusion number ALPHA and the row-major index macro AT(), which reads
 * the local variable nx of the function it is used in.
 */
#ifndef HEAT_KERNELS_H
#define HEAT_KERNELS_H

static void apply_stencil(const real_t *u, real_t *next, int nx, int ny)
{
    int cells = nx * ny;
#pragma omp target teams distribute parallel for collapse(2) \
        map(to: u[0:cells]) map(tofrom: next[0:cells])
    for (int i = 1; i < ny - 1; i++)
        for (int j = 1; j < nx - 1; j++)
            next[AT(i, j)] = u[AT(i, j)] +
                             ALPHA * (u[AT(i - 1, j)] + u[AT(i + 1, j)] +
                                      u[AT(i, j - 1)] + u[AT(i, j + 1)] - 4.0 * u[AT(i, j)]);
}

static void copy_interior(real_t *u, const real_t *next, int nx, int ny)
{
    int cells = nx * ny;
#pragma omp target teams distribute parallel for collapse(2) \
        map(to: next[0:cells]) map(tofrom: u[0:cells])
    for (int i = 1; i < ny - 1; i++)
        for (int j = 1; j < nx - 1; j++)
            u[AT(i, j)] = next[AT(i, j)];
}

static real_t total_heat(const real_t *u, int nx, int ny)
{
    int cells = nx * ny;
    real_t sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: u[0:cells])
    for (int k = 0; k < cells; k++)
        sum += u[k];
    return sum;
}

#endif
