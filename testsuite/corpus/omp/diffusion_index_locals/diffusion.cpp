#include "diffusion.hpp"

#include <cstdlib>

Diffusion::Diffusion(int nx, int ny, double r)
{
    mesh_.nx = nx;
    mesh_.ny = ny;
    mesh_.r = r;
    const int n = nx * ny;
    u_ = new double[n];
    un_ = new double[n];
    change_ = new double[n];
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const int k = j * nx + i;
            const bool hot = i > nx / 3 && i < nx / 2 && j > ny / 4 && j < ny / 2;
            u_[k] = hot ? 10.0 : (i == 0 || j == 0 ? 1.0 : 0.0);
            un_[k] = u_[k];
            change_[k] = 0.0;
        }
}

Diffusion::~Diffusion()
{
    delete[] u_;
    delete[] un_;
    delete[] change_;
}

void Diffusion::sync()
{
    // every kernel copies its fields back: nothing to do
}

double Diffusion::step()
{
    smooth(mesh_, u_, un_);
    relax(mesh_, un_, u_, change_);
    return total_change(mesh_, change_);
}
