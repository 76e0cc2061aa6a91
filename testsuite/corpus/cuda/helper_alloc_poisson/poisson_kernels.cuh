// poisson_kernels.cuh -- damped Jacobi sweep and a boundary mask for the 1-D Poisson problem.
// Uses BLOCK and real_t from the including file.
__global__ void jacobi_sweep(real_t *u_next, const real_t *u, const real_t *f, const int *fixed,
                             real_t h2, real_t omega, int n)
{
    __shared__ real_t tile[BLOCK + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;
    if (i < n) {
        tile[t] = u[i];
        if (threadIdx.x == 0)
            tile[0] = i > 0 ? u[i - 1] : 0.0;
        if (threadIdx.x == blockDim.x - 1 || i == n - 1)
            tile[t + 1] = i + 1 < n ? u[i + 1] : 0.0;
    }
    __syncthreads();
    if (i < n) {
        real_t jac = 0.5 * (tile[t - 1] + tile[t + 1] + h2 * f[i]);
        u_next[i] = fixed[i] ? u[i] : (1.0 - omega) * u[i] + omega * jac;
    }
}

__global__ void mark_boundary(int *fixed, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        fixed[i] = (i == 0 || i == n - 1);
}
