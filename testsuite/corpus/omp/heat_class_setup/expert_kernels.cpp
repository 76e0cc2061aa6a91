// expert_kernels.cpp -- (hand-mapped) the device kernels of the heat solver, one target construct each.
#include "heat.hpp"

void Diffuse(const plate_dims &dims, real_t dt, const real_t *t, real_t *t_next)
{
    const int nx = dims.nx, ny = dims.ny;
    const real_t r = dims.alpha * dt / (dims.h * dims.h);
#pragma omp target teams distribute parallel for collapse(2)
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++) {
            const int c = j * nx + i;
            t_next[c] = t[c] + r * (t[c - 1] + t[c + 1] + t[c - nx] + t[c + nx] - 4.0 * t[c]);
        }
}

void HoldEdges(const plate_dims &dims, real_t *t_next)
{
    const int nx = dims.nx, ny = dims.ny;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < nx; i++)
        t_next[(ny - 1) * nx + i] = t_next[(ny - 2) * nx + i];
}

real_t MaxChange(const plate_dims &dims, const real_t *t, const real_t *t_next)
{
    const int cells = dims.cells;
    real_t worst = 0.0;
#pragma omp target teams distribute parallel for reduction(max: worst)
    for (int c = 0; c < cells; c++) {
        real_t d = t_next[c] - t[c];
        d = d < 0 ? -d : d;
        worst = d > worst ? d : worst;
    }
    return worst;
}

void CopyBack(const plate_dims &dims, const real_t *t_next, real_t *t)
{
    const int cells = dims.cells;
#pragma omp target teams distribute parallel for
    for (int c = 0; c < cells; c++)
        t[c] = t_next[c];
}

real_t Heat(const plate_dims &dims, const real_t *t, const real_t *cap)
{
    const int cells = dims.cells;
    real_t total = 0.0;
#pragma omp target teams distribute parallel for reduction(+: total)
    for (int c = 0; c < cells; c++)
        total += cap[c] * t[c];
    return total * dims.h * dims.h;
}
