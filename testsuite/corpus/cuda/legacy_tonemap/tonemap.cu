/* tonemap.cu: exposure, gamma and clamp over an HDR image, one kernel per stage, written for
 * CUDA 3.x: cudaThreadSynchronize after each stage (removed in CUDA 13), floor/pow/log in host
 * code without <math.h>. The reference runs on the CPU; a histogram of the result is printed. */
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 96
#define HEIGHT 64
#define BLOCK 128

__global__ void expose(const float *hdr, float *ldr, float exposure, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        ldr[i] = hdr[i] * exposure;
}

__global__ void gamma_correct(float *ldr, float inv_gamma, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        ldr[i] = powf(ldr[i], inv_gamma);
}

__global__ void clamp_unit(float *ldr, float *clipped, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = ldr[i];
        clipped[i] = v > 1.0f ? 1.0f : v;
    }
}

static void tonemap_cpu(const float *hdr, float *out, float exposure, float inv_gamma, int n)
{
    for (int i = 0; i < n; i++) {
        float v = powf(hdr[i] * exposure, inv_gamma);
        out[i] = v > 1.0f ? 1.0f : v;
    }
}

int main(void)
{
    int n = WIDTH * HEIGHT;
    size_t bytes = n * sizeof(float);
    float exposure = 0.75f, inv_gamma = 1.0f / 2.2f;
    float *hdr = (float *)malloc(bytes);
    float *out = (float *)malloc(bytes);
    float *ref = (float *)malloc(bytes);
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++)
            hdr[y * WIDTH + x] = (float)(pow(2.0, (x % 12) / 3.0) * (1.0 + y / (double)HEIGHT));

    float *d_hdr, *d_ldr, *d_out;
    cudaMalloc((void **)&d_hdr, bytes);
    cudaMalloc((void **)&d_ldr, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpy(d_hdr, hdr, bytes, cudaMemcpyHostToDevice);

    int blocks = (n + BLOCK - 1) / BLOCK;
    expose<<<blocks, BLOCK>>>(d_hdr, d_ldr, exposure, n);
    cudaThreadSynchronize();
    gamma_correct<<<blocks, BLOCK>>>(d_ldr, inv_gamma, n);
    cudaThreadSynchronize();
    clamp_unit<<<blocks, BLOCK>>>(d_ldr, d_out, n);
    cudaThreadSynchronize();
    cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);

    tonemap_cpu(hdr, ref, exposure, inv_gamma, n);
    int mismatches = 0, histogram[8] = {0};
    for (int i = 0; i < n; i++) {
        if (fabs(out[i] - ref[i]) > 1e-5)
            mismatches++;
        int bin = (int)floor(out[i] * 7.999f);
        histogram[bin]++;
    }
    printf("pixels %d, mismatches %d, log mean %.5f\n", n, mismatches, log(1.0 + out[n / 2]));
    for (int b = 0; b < 8; b++)
        printf("bin %d: %d\n", b, histogram[b]);

    cudaFree(d_hdr);
    cudaFree(d_ldr);
    cudaFree(d_out);
    free(hdr);
    free(out);
    free(ref);
    return 0;
}
