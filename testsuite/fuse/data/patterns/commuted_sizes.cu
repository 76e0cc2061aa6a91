// Issue 19, corpus pattern (poly_atax): sizes written with their factors in another order in
// the allocation and in the copy, and a kernel that clears its output before accumulating
// into it (the access model calls that a read of a buffer nothing was copied to).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define ROWS 96
#define COLS 64

__global__ void row_sums(const float *m, const float *w, float *out)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < ROWS) {
        out[r] = 0.0f;
        for (int c = 0; c < COLS; c++)
            out[r] += m[r * COLS + c] * w[c];
    }
}

int main()
{
    float *m = (float *)malloc(ROWS * COLS * sizeof(float));
    float *w = (float *)malloc(sizeof(float) * COLS);
    float *out = (float *)malloc(ROWS * sizeof(float));
    for (int i = 0; i < ROWS * COLS; i++)
        m[i] = (float)(i % 13) - 6.0f;
    for (int c = 0; c < COLS; c++)
        w[c] = 0.25f * (c % 5);
    float *d_m, *d_w, *d_out;
    cudaMalloc((void **)&d_m, sizeof(float) * ROWS * COLS);
    cudaMalloc((void **)&d_w, COLS * sizeof(float));
    cudaMalloc((void **)&d_out, sizeof(float) * ROWS);
    cudaMemcpy(d_m, m, sizeof(float) * COLS * ROWS, cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, w, COLS * sizeof(float), cudaMemcpyHostToDevice);
    row_sums<<<(ROWS + 31) / 32, 32>>>(d_m, d_w, d_out);
    cudaMemcpy(out, d_out, ROWS * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\n", out[0], out[ROWS - 1]);
    cudaFree(d_m);
    cudaFree(d_w);
    cudaFree(d_out);
    free(m);
    free(w);
    free(out);
    return 0;
}
