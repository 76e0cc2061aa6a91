// field.cu -- Field's methods launch 2-D kernels on its device buffer; main blurs an image a
// few times through two fields.
#include <cstdio>
#include <cstdlib>
#include "field.h"

#define TILE 8

__global__ void blur_kernel(const float *in, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    float sum = 0.0f;
    int count = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < nx && yy >= 0 && yy < ny) {
                sum += in[yy * nx + xx];
                count++;
            }
        }
    out[y * nx + x] = sum / count;
}

__global__ void scale_kernel(float *data, float s, int total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total)
        data[i] *= s;
}

Field::Field(int nx, int ny) : nx_(nx), ny_(ny), data_(0)
{
    cudaMalloc((void **)&data_, (size_t)nx * ny * sizeof(float));
}

Field::~Field() { cudaFree(data_); }

void Field::upload(const float *host)
{
    cudaMemcpy(data_, host, (size_t)nx_ * ny_ * sizeof(float), cudaMemcpyHostToDevice);
}

void Field::download(float *host) const
{
    cudaMemcpy(host, data_, (size_t)nx_ * ny_ * sizeof(float), cudaMemcpyDeviceToHost);
}

void Field::blur(Field &out) const
{
    dim3 block(TILE, TILE);
    dim3 grid((nx_ + TILE - 1) / TILE, (ny_ + TILE - 1) / TILE);
    blur_kernel<<<grid, block>>>(data_, out.data_, nx_, ny_);
}

void Field::scale(float s)
{
    int total = nx_ * ny_;
    scale_kernel<<<(total + 127) / 128, 128>>>(data_, s, total);
}

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 40;
    int ny = argc > 2 ? atoi(argv[2]) : 30;
    float *image = (float *)malloc(nx * ny * sizeof(float));
    for (int i = 0; i < nx * ny; i++)
        image[i] = (float)((i * 37) % 101);
    Field a(nx, ny), b(nx, ny);
    a.upload(image);
    for (int pass = 0; pass < 2; pass++) {
        a.blur(b);
        b.scale(1.01f);
        b.blur(a);
    }
    a.download(image);
    double sum = 0.0;
    for (int i = 0; i < nx * ny; i++)
        sum += image[i];
    printf("%d x %d, mean = %.6f, corner = %.6f\n", nx, ny, sum / (nx * ny), image[0]);
    free(image);
    return 0;
}
