// jacobi_kernels.cuh -- weighted Jacobi kernels of relax.cu.
//
// relax.cu includes this after defining the scalar type `real`, the tile sizes TILE_X /
// TILE_Y and the index macro IX() (which reads the kernel's nx); it does not compile on its
// own.
#ifndef JACOBI_KERNELS_CUH
#define JACOBI_KERNELS_CUH

__constant__ real stencil_weights[2];   // centre, neighbours

__global__ void relax(int nx, int ny, const real *in, real *out)
{
    int x = blockIdx.x * TILE_X + threadIdx.x;
    int y = blockIdx.y * TILE_Y + threadIdx.y;
    if (x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1)
        out[IX(x, y)] = stencil_weights[0] * in[IX(x, y)] +
                           stencil_weights[1] * (in[IX(x - 1, y)] + in[IX(x + 1, y)] +
                                                 in[IX(x, y - 1)] + in[IX(x, y + 1)]);
}

__global__ void residual(int nx, int ny, const real *a, const real *b, real *diff)
{
    int x = blockIdx.x * TILE_X + threadIdx.x;
    int y = blockIdx.y * TILE_Y + threadIdx.y;
    if (x < nx && y < ny) {
        real d = a[IX(x, y)] - b[IX(x, y)];
        diff[IX(x, y)] = d < 0 ? -d : d;
    }
}

#endif
