/* stencil.h -- 2-D five-point diffusion kernels, header-only so that the
 * compiler can inline them into the solver loop. */
#ifndef STENCIL_H
#define STENCIL_H

#include <stddef.h>

#define IDX(i, j, nx) ((size_t)(i) * (nx) + (j))

static inline void stencil_step(const float *restrict in, float *restrict out, int nx, int ny,
                                float alpha)
{
    int total = nx * ny;
#pragma omp target teams distribute parallel for collapse(2) \
        map(to: in[0:total]) map(tofrom: out[0:total])
    for (int i = 1; i < ny - 1; i++)
        for (int j = 1; j < nx - 1; j++)
            out[IDX(i, j, nx)] = in[IDX(i, j, nx)] +
                                 alpha * (in[IDX(i - 1, j, nx)] + in[IDX(i + 1, j, nx)] +
                                          in[IDX(i, j - 1, nx)] + in[IDX(i, j + 1, nx)] -
                                          4.0f * in[IDX(i, j, nx)]);
}

static inline float stencil_max_diff(const float *a, const float *b, int nx, int ny)
{
    int total = nx * ny;
    float diff = 0.0f;
#pragma omp target teams distribute parallel for reduction(max: diff) \
        map(to: a[0:total], b[0:total])
    for (int k = 0; k < total; k++) {
        float d = a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
        diff = d > diff ? d : diff;
    }
    return diff;
}

#endif /* STENCIL_H */
