/* Tile kernels of the pipeline. Needs the includer's TILE (threads per block, a power of
 * two) and real; written with cooperative groups, as current vendor samples are. */
#ifndef TILE_OPS_CUH
#define TILE_OPS_CUH

namespace cg = cooperative_groups;

__global__ void scale_k(real *out, const real *in, real a, int n)
{
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

__global__ void bias_k(real *out, const real *in, real b, int n)
{
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n)
        out[i] = in[i] + b;
}

/* reverse the values of one tile in place in shared memory; every thread of the block
   takes part (the barrier is the block's) */
__device__ void reverse_tile(real *tile, cg::thread_block cta)
{
    unsigned t = cta.thread_rank();
    real mine = tile[TILE - 1 - t];
    cg::sync(cta);
    tile[t] = mine;
    cg::sync(cta);
}

__global__ void flip_k(real *out, const real *in, int n)
{
    __shared__ real tile[TILE];
    cg::thread_block cta = cg::this_thread_block();
    int i = blockIdx.x * TILE + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : (real)0;
    cta.sync();
    reverse_tile(tile, cta);
    if (i < n)
        out[i] = tile[threadIdx.x];
}

__global__ void tile_sums_k(const real *in, real *sums, int n)
{
    __shared__ real part[TILE];
    cg::thread_block cta = cg::this_thread_block();
    int i = blockIdx.x * TILE + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : (real)0;
    cg::sync(cta);
    for (int s = TILE / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        cg::sync(cta);
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = part[0];
}

#endif
