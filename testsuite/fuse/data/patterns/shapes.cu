// Issue 19, item 7: a 2-D interior kernel followed by 1-D boundary kernels on the same grid.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void interior(const float *in, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1)
        out[y * nx + x] = 0.25f * (in[y * nx + x - 1] + in[y * nx + x + 1] +
                                   in[(y - 1) * nx + x] + in[(y + 1) * nx + x]);
}

__global__ void rows(float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) {
        out[x] = out[nx + x];
        out[(ny - 1) * nx + x] = out[(ny - 2) * nx + x];
    }
}

__global__ void cols(float *out, int nx, int ny)
{
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y < ny) {
        out[y * nx] = out[y * nx + 1];
        out[y * nx + nx - 1] = out[y * nx + nx - 2];
    }
}

int main()
{
    int nx = 512, ny = 384;
    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < nx * ny; ++i)
        h[i] = (float)(i % 17);
    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpy(d_in, h, bytes, cudaMemcpyHostToDevice);
    dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
    interior<<<grid, block>>>(d_in, d_out, nx, ny);
    rows<<<(nx + 127) / 128, 128>>>(d_out, nx, ny);
    cols<<<(ny + 127) / 128, 128>>>(d_out, nx, ny);
    cudaMemcpy(h, d_out, bytes, cudaMemcpyDeviceToHost);
    printf("%f\n", h[nx + 1]);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    return 0;
}
