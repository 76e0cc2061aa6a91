// pack_kernels.cuh -- kernels of chain.cu. The coordinates live in one allocation as three
// fields (x, y, z) of NODES_PER_BLOCK-aligned length n; kernels get each field's pointer.
// Needs BLOCK and the Chain struct from chain.cu.
#pragma once

// spring force of the two chain neighbours, per coordinate field
__global__ void springs(const float *x, const float *y, const float *z, const float *mass,
                        float *force, Chain c)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= c.n)
        return;
    int l = i > 0 ? i - 1 : i, r = i < c.n - 1 ? i + 1 : i;
    float inv = 1.0f / mass[i];
    force[i] = c.k * (x[l] + x[r] - 2.0f * x[i]) * inv;
    force[c.n + i] = c.k * (y[l] + y[r] - 2.0f * y[i]) * inv;
    force[2 * c.n + i] = c.k * (z[l] + z[r] - 2.0f * z[i]) * inv - c.g;
}

// move one coordinate field along its force field
__global__ void drift(float *field, const float *force, float dt, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        field[i] += dt * force[i];
}

// running energy: e_new = 0.5 e_old + |f|^2, from the three force fields
__global__ void energy(const float *force, const float *e_old, float *e_new, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n)
        return;
    float fx = force[i], fy = force[n + i], fz = force[2 * n + i];
    e_new[i] = 0.5f * e_old[i] + fx * fx + fy * fy + fz * fz;
}
