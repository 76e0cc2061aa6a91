// gravity_kernels.hpp -- the device kernels of simulation.cpp.
//
// Compiled only as part of simulation.cpp: it relies on the including file for <cmath>,
// the scalar type `real`, the time step DT and the softening length SOFTENING2.
#pragma once

namespace gravity {

inline void kick(const real *x, const real *y, const real *z, real *vx, real *vy, real *vz,
                 const real *mass, int n)
{
#pragma omp target teams distribute parallel for \
        map(to: x[0:n], y[0:n], z[0:n], mass[0:n]) map(tofrom: vx[0:n], vy[0:n], vz[0:n])
    for (int i = 0; i < n; i++) {
        real ax = 0, ay = 0, az = 0;
        for (int j = 0; j < n; j++) {
            real dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            real r2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
            real inv = 1.0 / (r2 * std::sqrt(r2));
            ax += mass[j] * dx * inv;
            ay += mass[j] * dy * inv;
            az += mass[j] * dz * inv;
        }
        vx[i] += DT * ax;
        vy[i] += DT * ay;
        vz[i] += DT * az;
    }
}

inline void drift(real *x, real *y, real *z, const real *vx, const real *vy, const real *vz,
                  int n)
{
#pragma omp target teams distribute parallel for \
        map(tofrom: x[0:n], y[0:n], z[0:n]) map(to: vx[0:n], vy[0:n], vz[0:n])
    for (int i = 0; i < n; i++) {
        x[i] += DT * vx[i];
        y[i] += DT * vy[i];
        z[i] += DT * vz[i];
    }
}

inline real kinetic_energy(const real *vx, const real *vy, const real *vz, const real *mass,
                           int n)
{
    real energy = 0;
#pragma omp target teams distribute parallel for reduction(+: energy) \
        map(to: vx[0:n], vy[0:n], vz[0:n], mass[0:n])
    for (int i = 0; i < n; i++)
        energy += 0.5 * mass[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    return energy;
}

}  // namespace gravity
