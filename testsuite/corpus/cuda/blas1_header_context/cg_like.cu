// cg_like.cu -- a CG-style sequence of level-1 updates on two vectors, kernels in
// blas1_kernels.cuh, partial dot products summed on the host every iteration.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),   \
                    __FILE__, __LINE__);                                              \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

typedef float real;
#define THREADS 128
struct axpby_coeffs {
    real a, b;
};

#include "blas1_kernels.cuh"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    int iters = argc > 2 ? atoi(argv[2]) : 8;
    int blocks = (n + THREADS - 1) / THREADS;
    size_t bytes = n * sizeof(real);

    real *x = (real *)malloc(bytes), *y = (real *)malloc(bytes);
    real *partial = (real *)malloc(blocks * sizeof(real));
    for (int i = 0; i < n; i++) {
        x[i] = (real)((i % 17) - 8) / 16.0f;
        y[i] = (real)((i % 5) + 1) / 8.0f;
    }

    real *d_x, *d_y, *d_partial;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(real)));
    CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    axpby_coeffs c = {0.5f, 0.75f};
    for (int it = 0; it < iters; it++) {
        axpby<<<blocks, THREADS>>>(c, d_x, d_y, n);
        scale_shift<<<blocks, THREADS>>>(d_y, 0.9f, 0.01f, n);
        dot_partial<<<blocks, THREADS>>>(d_x, d_y, d_partial, n);
        CHECK(cudaMemcpy(partial, d_partial, blocks * sizeof(real), cudaMemcpyDeviceToHost));
        double dot = 0.0;
        for (int b = 0; b < blocks; b++)
            dot += partial[b];
        printf("iteration %d: x.y = %.5f\n", it, dot);
    }
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    printf("GPU time: %.3f ms\n", ms);

    CHECK(cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += y[i];
    printf("sum(y) = %.4f  y[7] = %.6f\n", sum, y[7]);

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_partial));
    free(x);
    free(y);
    free(partial);
    return 0;
}
