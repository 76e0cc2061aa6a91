// blas1_kernels.cuh -- level-1 vector kernels of cg_like.cu.
//
// Not self-contained: cg_like.cu includes it after defining the element type `real`,
// the block size THREADS and the coefficient pair `axpby_coeffs`.
#ifndef BLAS1_KERNELS_CUH
#define BLAS1_KERNELS_CUH

// y = a * x + b * y
__global__ void axpby(axpby_coeffs c, const real *x, real *y, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n)
        y[i] = c.a * x[i] + c.b * y[i];
}

// y = y * s + shift
__global__ void scale_shift(real *y, real s, real shift, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n)
        y[i] = y[i] * s + shift;
}

// one partial sum of x[i] * y[i] per block
__global__ void dot_partial(const real *x, const real *y, real *partial, int n)
{
    __shared__ real cache[THREADS];
    int i = blockIdx.x * THREADS + threadIdx.x;
    cache[threadIdx.x] = i < n ? x[i] * y[i] : real(0);
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = cache[0];
}

#endif
