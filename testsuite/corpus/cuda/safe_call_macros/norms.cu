// norms.cu -- row sums and a normalisation of a small matrix; every runtime call wrapped in
// CUDA_SAFE_CALL, kernels launched through this file's LAUNCH_CHECKED.
#include "cuda_utils.h"

// launch, then check: more than a forwarding of <<<...>>>
#define LAUNCH_CHECKED(kernel, grid, block, ...)                               \
    do {                                                                       \
        kernel<<<grid, block>>>(__VA_ARGS__);                                  \
        CUDA_SAFE_CALL(cudaGetLastError());                                    \
    } while (0)

__global__ void row_sums(const float *m, float *sums, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; c++)
            s += m[r * cols + c];
        sums[r] = s;
    }
}

__global__ void normalise(float *m, const float *sums, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && sums[r] != 0.0f)
        for (int c = 0; c < cols; c++)
            m[r * cols + c] /= sums[r];
}

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 96, cols = 24;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < rows * cols; i++)
        h[i] = (float)(1 + (i * 7) % 13);
    float *d_m, *d_sums;
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_m, bytes));
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_sums, rows * sizeof(float)));
    CUDA_SAFE_CALL(cudaMemcpy(d_m, h, bytes, cudaMemcpyHostToDevice));
    LAUNCH_CHECKED(row_sums, (rows + 31) / 32, 32, d_m, d_sums, rows, cols);
    LAUNCH_CHECKED(normalise, (rows + 31) / 32, 32, d_m, d_sums, rows, cols);
    CUDA_SAFE_CALL(cudaMemcpy(h, d_m, bytes, cudaMemcpyDeviceToHost));
    double total = 0.0;
    for (int i = 0; i < rows * cols; i++)
        total += h[i];
    printf("rows = %d, total = %.6f, first = %.6f\n", rows, total, h[0]);
    CUDA_SAFE_CALL(cudaFree(d_m));
    CUDA_SAFE_CALL(cudaFree(d_sums));
    free(h);
    return 0;
}
