/*
 * hotspot.cu -- transient chip temperature, 2-D five-point stencil.
 *
 * Modelled on the Rodinia "hotspot" benchmark: a grid of cells holds a
 * temperature and a dissipated power.  Every time step each cell moves
 * towards its four neighbours (north/south weighted by Ry, east/west by
 * Rx) and towards the ambient temperature (Rz), driven by its power.
 * Cells on the border use themselves in place of the missing neighbour.
 *
 * Two temperature buffers live on the device; the host loop launches one
 * kernel per step and swaps the two pointers, and only the final field is
 * copied back.  The coefficients are normalised powers of two.
 *
 * Usage: hotspot [width [height [steps]]]   (default 500 300 200)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK_X 16
#define BLOCK_Y 16

#define AMB_TEMP 80.0f

__global__ void hotspot_step(const float *power, const float *temp_src,
                             float *temp_dst, int width, int height,
                             float step_div_cap, float rx_1, float ry_1,
                             float rz_1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    int c = y * width + x;
    /* boundary cells reuse their own temperature for missing neighbours */
    int w = (x > 0) ? c - 1 : c;
    int e = (x < width - 1) ? c + 1 : c;
    int n = (y > 0) ? c - width : c;
    int s = (y < height - 1) ? c + width : c;

    float t = temp_src[c];
    float delta = step_div_cap *
                  (power[c] +
                   (temp_src[s] + temp_src[n] - 2.0f * t) * ry_1 +
                   (temp_src[e] + temp_src[w] - 2.0f * t) * rx_1 +
                   (AMB_TEMP - t) * rz_1);
    temp_dst[c] = t + delta;
}

static void init_fields(float *temp, float *power, int width, int height)
{
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int c = y * width + x;
            temp[c] = 320.0f + 0.5f * (float)((3 * x + 5 * y) % 17);
            power[c] = 0.0625f * (float)((7 * x + 11 * y) % 13);
            /* a hot functional unit in the middle of the die */
            if (x > width / 3 && x < width / 2 && y > height / 3 && y < height / 2)
                power[c] += 4.0f;
        }
    }
}

int main(int argc, char **argv)
{
    int width = 500, height = 300, steps = 200;
    if (argc > 1) width = atoi(argv[1]);
    if (argc > 2) height = atoi(argv[2]);
    if (argc > 3) steps = atoi(argv[3]);
    if (width < 2 || height < 2 || steps < 0) {
        fprintf(stderr, "usage: %s [width [height [steps]]]\n", argv[0]);
        return 1;
    }

    /* normalised model coefficients (stable: cap * (2Rx + 2Ry + Rz) < 1) */
    const float step_div_cap = 0.125f;
    const float rx_1 = 1.0f;
    const float ry_1 = 1.0f;
    const float rz_1 = 0.0625f;

    size_t cells = (size_t)width * height;
    size_t bytes = cells * sizeof(float);

    float *h_temp = (float *)malloc(bytes);
    float *h_power = (float *)malloc(bytes);
    init_fields(h_temp, h_power, width, height);

    float *d_power, *d_temp_a, *d_temp_b;
    cudaMalloc((void **)&d_power, bytes);
    cudaMalloc((void **)&d_temp_a, bytes);
    cudaMalloc((void **)&d_temp_b, bytes);

    cudaMemcpy(d_power, h_power, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_temp_a, h_temp, bytes, cudaMemcpyHostToDevice);

    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid((width + BLOCK_X - 1) / BLOCK_X, (height + BLOCK_Y - 1) / BLOCK_Y);

    float *d_src = d_temp_a;
    float *d_dst = d_temp_b;
    for (int t = 0; t < steps; ++t) {
        hotspot_step<<<grid, block>>>(d_power, d_src, d_dst, width, height,
                                      step_div_cap, rx_1, ry_1, rz_1);
        float *tmp = d_src;
        d_src = d_dst;
        d_dst = tmp;
    }

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "hotspot_step failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    /* after the final swap d_src holds the newest field */
    cudaMemcpy(h_temp, d_src, bytes, cudaMemcpyDeviceToHost);

    double checksum = 0.0;
    float tmin = h_temp[0], tmax = h_temp[0];
    for (size_t c = 0; c < cells; ++c) {
        checksum += h_temp[c];
        if (h_temp[c] < tmin) tmin = h_temp[c];
        if (h_temp[c] > tmax) tmax = h_temp[c];
    }

    printf("hotspot %dx%d steps=%d\n", width, height, steps);
    printf("mean %.6g min %.6g max %.6g\n", checksum / (double)cells, tmin, tmax);
    int px[5] = {0, width - 1, width / 2, 5 * width / 12, width / 4};
    int py[5] = {0, height - 1, height / 2, 5 * height / 12, 3 * height / 4};
    for (int k = 0; k < 5; ++k)
        printf("T[%d][%d] = %.6g\n", py[k], px[k], h_temp[(size_t)py[k] * width + px[k]]);

    cudaFree(d_power);
    cudaFree(d_temp_a);
    cudaFree(d_temp_b);
    free(h_temp);
    free(h_power);
    return 0;
}
