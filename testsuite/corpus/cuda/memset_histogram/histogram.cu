/* histogram.cu: 64-bin histogram with atomics; bins zeroed by cudaMemset between two runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 64
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s failed: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void histogram(const unsigned char *data, int n, unsigned int *bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (; i < n; i += stride)
        atomicAdd(&bins[data[i] % BINS], 1u);
}

__global__ void scale_bins(unsigned int *bins, unsigned int factor)
{
    int b = threadIdx.x;
    if (b < BINS)
        bins[b] *= factor;
}

int main(void)
{
    const int n = 200000;
    unsigned char *data = (unsigned char *)malloc(n);
    unsigned int ref[BINS], got[BINS];
    memset(ref, 0, sizeof ref);
    for (int i = 0; i < n; i++) {
        data[i] = (unsigned char)((i * 2654435761u) >> 24);
        ref[data[i] % BINS]++;
    }
    unsigned char *d_data;
    unsigned int *d_bins;
    CHECK(cudaMalloc((void **)&d_data, n));
    CHECK(cudaMalloc((void **)&d_bins, BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_data, data, n, cudaMemcpyHostToDevice));
    for (int run = 0; run < 2; run++) {
        CHECK(cudaMemset(d_bins, 0, BINS * sizeof(unsigned int)));
        histogram<<<32, 256>>>(d_data, n, d_bins);
        scale_bins<<<1, BINS>>>(d_bins, run + 1);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got, d_bins, sizeof got, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int b = 0; b < BINS; b++)
            bad += got[b] != ref[b] * (run + 1);
        printf("run %d: bin[3]=%u bin[60]=%u mismatches=%d\n", run, got[3], got[60], bad);
    }
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_bins));
    free(data);
    return 0;
}
