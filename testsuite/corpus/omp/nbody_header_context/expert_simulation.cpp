// simulation.cpp -- leapfrog time stepping; the kernels are in gravity_kernels.hpp.
#include <cmath>
#include <cstdio>

#include "simulation.hpp"

using real = double;
#define DT 0.001
#define SOFTENING2 1e-4

#include "gravity_kernels.hpp"

void simulate(double *x, double *y, double *z, double *vx, double *vy, double *vz,
              const double *mass, int n, int steps, int every)
{
#pragma omp target data map(tofrom: x[0:n], y[0:n], z[0:n]) map(to: vx[0:n], vy[0:n], vz[0:n], mass[0:n])
    for (int step = 1; step <= steps; step++) {
        gravity::kick(x, y, z, vx, vy, vz, mass, n);
        gravity::drift(x, y, z, vx, vy, vz, n);
        if (step % every == 0)
            std::printf("step %4d  kinetic energy %.9e\n", step,
                        gravity::kinetic_energy(vx, vy, vz, mass, n));
    }
}
