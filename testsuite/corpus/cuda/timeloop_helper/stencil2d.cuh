// stencil2d.cuh -- one explicit step of the 2-D heat equation with a power source; the tile
// size TILE comes from the including file.
__global__ void heat_step(const float *power, const float *src, float *dst, int rows, int cols,
                          float cap, float rx, float ry)
{
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    int i = r * cols + c;
    float n = src[r > 0 ? i - cols : i];
    float s = src[r < rows - 1 ? i + cols : i];
    float w = src[c > 0 ? i - 1 : i];
    float e = src[c < cols - 1 ? i + 1 : i];
    dst[i] = src[i] + cap * (power[i] + (n + s - 2.0f * src[i]) * ry + (e + w - 2.0f * src[i]) * rx);
}
