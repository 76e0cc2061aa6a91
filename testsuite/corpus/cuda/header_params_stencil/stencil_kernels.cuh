// stencil_kernels.cuh -- the kernels of wave.cu. Not self-contained: wave.cu includes it after
// stencil_params.h and after defining RADIUS and the element type `value_t`.

__global__ void wave_step(const value_t *prev, const value_t *cur, value_t *next, Params p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < RADIUS || i >= p.n - RADIUS) {
        if (i < p.n)
            next[i] = 0;
        return;
    }
    value_t lap = 0;
    for (int r = 1; r <= RADIUS; r++)
        lap += cur[i - r] + cur[i + r] - 2 * cur[i];
    next[i] = 2 * cur[i] - prev[i] + p.alpha * lap;
}

__global__ void damp(value_t *u, Params p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        u[i] *= p.beta;
}
