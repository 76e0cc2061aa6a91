// species.h -- sizes and kernels of the three-species reaction-diffusion model.
// Needs THREADS and real from the including file (species.cu).
#ifndef SPECIES_H
#define SPECIES_H

#define NSPECIES 3

struct RunInfo {
    int n;
    int steps;
    int blocks;
};

// one explicit diffusion step of one field: out = in + nu * laplacian(in)
__global__ void diffuse(const real *in, real *out, const real *nu, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    real left = i > 0 ? in[i - 1] : in[i];
    real right = i < n - 1 ? in[i + 1] : in[i];
    out[i] = in[i] + nu[i] * (left - 2 * in[i] + right);
}

// a -> b -> c with rates k[0], k[1], one step
__global__ void react(real *a, real *b, real *c, const real *k, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    real ab = k[0] * a[i];
    real bc = k[1] * b[i];
    a[i] -= ab;
    b[i] += ab - bc;
    c[i] += bc;
}

// the carrier field feeds species 0 where it is above its mean
__global__ void feed(const real *carrier, real *a, real level, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n && carrier[i] > level)
        a[i] += 0.01f * (carrier[i] - level);
}

#endif
