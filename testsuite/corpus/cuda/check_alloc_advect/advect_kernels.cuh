// advect_kernels.cuh -- upwind advection of a tracer on a periodic 1-D grid. Needs the
// includer's BLOCK and real (it does not compile on its own).

__global__ void mark_inflow(unsigned char *inflow, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        inflow[i] = (i % 97) < 3;
}

__global__ void upwind_flux(real *flux, const real *q, const real *vel, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        int left = (i + n - 1) % n;
        real v = vel[i];
        flux[i] = v > 0 ? v * q[left] : v * q[i];
    }
}

__global__ void update(real *next, const real *q, const real *flux, const unsigned char *inflow,
                       real ratio, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        int right = (i + 1) % n;
        real value = q[i] + ratio * (flux[i] - flux[right]);
        next[i] = inflow[i] ? (real)1 : value;
    }
}
