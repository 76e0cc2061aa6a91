/* Kernels of the 3-D heat program. Not a header of its own: it needs NX, NY and real from
 * heat3d.cu, which includes it after defining them. */
#ifndef HEAT_KERNELS_CUH
#define HEAT_KERNELS_CUH

/* fill one z-plane (the host passes the plane's start) */
__global__ void fill_plane(real *plane, int cells, real base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cells)
        plane[i] = base + (real)(i % NX) * 0.01f - (real)(i / NX) * 0.02f;
}

/* one explicit step; every thread walks its column through the planes */
__global__ void diffuse(const real t[][NY][NX], real out[][NY][NX], int nz, real k)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= NX || y >= NY)
        return;
    for (int z = 0; z < nz; ++z) {
        real c = t[z][y][x];
        real w = x > 0 ? t[z][y][x - 1] : c;
        real e = x < NX - 1 ? t[z][y][x + 1] : c;
        real s = y > 0 ? t[z][y - 1][x] : c;
        real n = y < NY - 1 ? t[z][y + 1][x] : c;
        real d = z > 0 ? t[z - 1][y][x] : c;
        real u = z < nz - 1 ? t[z + 1][y][x] : c;
        out[z][y][x] = c + k * (w + e + s + n + d + u - 6.0f * c);
    }
}

/* scale a field of nz planes; no bounds check: the grid covers nx x ny exactly, and the
 * column offset moves one plane (nx * ny) per step, as Rodinia's hotspot3D writes it */
__global__ void scale_columns(const real *in, real *out, int nx, int ny, int nz, real f)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    int j = blockDim.y * blockIdx.y + threadIdx.y;
    int c = i + j * nx;
    int xy = nx * ny;
    out[c] = f * in[c];
    c += xy;
    for (int k = 1; k < nz - 1; ++k) {
        out[c] = f * in[c] + 0.5f * in[c - xy];
        c += xy;
    }
    out[c] = f * in[c];
}

#endif
