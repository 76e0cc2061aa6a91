// The expert's kernels: no map clauses, the fields stay on the device for the solver's
// lifetime (expert_diffusion.cpp).
#include "mesh.hpp"

void smooth(const Mesh &m, const double *u, double *un)
{
    const int stride = m.nx;
    const int inner_x = m.nx - 2;
    const int inner_y = m.ny - 2;
    const double r = m.r;
    #pragma omp target teams distribute parallel for collapse(2)
    for (int j = 0; j < inner_y; j++) {
        for (int i = 0; i < inner_x; i++) {
            const int index = (i + 1) + (j + 1) * stride;
            const int left = index - 1;
            const int right = index + 1;
            un[index] = u[index] + r * (u[left] + u[right] - 2.0 * u[index]);
        }
    }
}

void relax(const Mesh &m, const double *un, double *u, double *change)
{
    const int stride = m.nx;
    const int inner_x = m.nx - 2;
    const int inner_y = m.ny - 2;
    #pragma omp target teams distribute parallel for collapse(2)
    for (int j = 0; j < inner_y; j++) {
        for (int i = 0; i < inner_x; i++) {
            const int index = (i + 1) + (j + 1) * stride;
            const double d = un[index] - u[index];
            change[index] = d < 0.0 ? -d : d;
            u[index] = 0.5 * (u[index] + un[index]);
        }
    }
}

double total_change(const Mesh &m, const double *change)
{
    const int stride = m.nx;
    const int inner_x = m.nx - 2;
    const int inner_y = m.ny - 2;
    double total = 0.0;
    #pragma omp target teams distribute parallel for collapse(2) reduction(+: total)
    for (int j = 0; j < inner_y; j++) {
        for (int i = 0; i < inner_x; i++) {
            const int index = (i + 1) + (j + 1) * stride;
            total += change[index];
        }
    }
    return total;
}
