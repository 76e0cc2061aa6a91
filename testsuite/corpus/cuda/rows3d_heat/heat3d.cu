/* 3-D heat diffusion on an NZ x NY x NX box: the field is passed to the step kernel as
 * real[][NY][NX] rows, planes are filled by one launch per plane at d + k * plane, and a
 * final scaling kernel walks each column with a plane-sized stride.
 * usage: heat3d NZ STEPS */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NX 32
#define NY 16
typedef float real;

#include "timer.h"
#include "heat_kernels.cuh"

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                    cudaGetErrorString(err_));                               \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int nz = argc > 1 ? atoi(argv[1]) : 8;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    if (nz < 3 || steps < 1) {
        fprintf(stderr, "usage: %s NZ>=3 STEPS>=1\n", argv[0]);
        return 2;
    }
    const int plane = NX * NY;
    size_t bytes = (size_t)nz * plane * sizeof(real);
    real (*d_t)[NY][NX];
    real (*d_next)[NY][NX];
    real *d_scaled;
    CHECK(cudaMalloc((void **)&d_t, bytes));
    CHECK(cudaMalloc((void **)&d_next, bytes));
    CHECK(cudaMalloc((void **)&d_scaled, bytes));

    double start = wall_ms();
    for (int k = 0; k < nz; ++k)
        fill_plane<<<(plane + 127) / 128, 128>>>(&d_t[0][0][0] + k * plane, plane, 20.0f + k);
    CHECK(cudaGetLastError());

    dim3 block(16, 8);
    dim3 grid(NX / block.x, NY / block.y);
    for (int s = 0; s < steps; ++s) {
        diffuse<<<grid, block>>>(d_t, d_next, nz, 0.1f);
        real (*swap)[NY][NX] = d_t;
        d_t = d_next;
        d_next = swap;
    }
    scale_columns<<<grid, block>>>(&d_t[0][0][0], d_scaled, NX, NY, nz, 0.5f);
    CHECK(cudaDeviceSynchronize());
    double stop = wall_ms();

    real *h = (real *)malloc(bytes);
    CHECK(cudaMemcpy(h, d_scaled, bytes, cudaMemcpyDeviceToHost));
    for (int k = 0; k < nz; ++k) {
        double sum = 0.0;
        for (int i = 0; i < plane; ++i)
            sum += h[(size_t)k * plane + i];
        printf("plane %d: mean %.5f corner %.5f\n", k, sum / plane, h[(size_t)k * plane + 3 * NX + 5]);
    }
    printf("Time: %.3f ms for %d steps\n", stop - start, steps);
    free(h);
    CHECK(cudaFree(d_t));
    CHECK(cudaFree(d_next));
    CHECK(cudaFree(d_scaled));
    return 0;
}
