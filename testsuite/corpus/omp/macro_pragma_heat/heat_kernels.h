/* The device kernels of the solver, written once for every build through OFFLOAD(...).
 * Needs offload.h and grid.h first. */
#ifndef HEAT_KERNELS_H
#define HEAT_KERNELS_H

static inline void heat_step(const double *u, double *un, int nx, int ny, double alpha)
{
    OFFLOAD(teams distribute parallel for collapse(2) map(to: u[0:nx*ny]) map(from: un[0:nx*ny]))
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            size_t c = IDX(i, j, ny);
            if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
                un[c] = u[c];
            else
                un[c] = u[c] + alpha * (u[IDX(i - 1, j, ny)] + u[IDX(i + 1, j, ny)] +
                                        u[IDX(i, j - 1, ny)] + u[IDX(i, j + 1, ny)] - 4.0 * u[c]);
        }
}

static inline void heat_copy(double *dst, const double *src, int nx, int ny)
{
    OFFLOAD(teams distribute parallel for map(to: src[0:nx*ny]) map(from: dst[0:nx*ny]))
    for (size_t k = 0; k < (size_t)nx * (size_t)ny; k++)
        dst[k] = src[k];
}

static inline double heat_energy(const double *u, int nx, int ny)
{
    double e = 0.0;
    OFFLOAD(teams distribute parallel for reduction(+:e) map(to: u[0:nx*ny]))
    for (size_t k = 0; k < (size_t)nx * (size_t)ny; k++)
        e += u[k] * u[k];
    return e;
}

#endif
