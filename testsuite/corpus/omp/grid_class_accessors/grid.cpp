// grid.cpp -- allocation and set-up of the field
#include "grid.hpp"
#include <chrono>
#include <cmath>

void Grid::allocate(int nx, int ny)
{
    nx_ = nx;
    ny_ = ny;
    u_.resize(nx * ny);
    next_.resize(nx * ny);
    src_.resize(nx * ny);
}

void fill_source(Grid &g, double amplitude)
{
    double *f = g.source();
    double *u = g.u();
    const int nx = g.nx(), ny = g.ny();
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double x = (double)i / (nx - 1), y = (double)j / (ny - 1);
            f[j * nx + i] = amplitude * std::sin(3.0 * x) * std::cos(2.0 * y);
            u[j * nx + i] = (i == 0 || j == 0) ? 1.0 : 0.0;
        }
}

double wall_seconds()
{
    return std::chrono::duration<double>(
        std::chrono::steady_clock::now().time_since_epoch()).count();
}
