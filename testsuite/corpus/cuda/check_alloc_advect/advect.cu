// advect.cu -- tracer advection by an upwind scheme. Device arrays come from the helpers of
// device_arrays.h, whose cudaMalloc sits inside CUDA_CHECK; some are declared with the
// helper's value, some assigned it later; uploads go through upload_floats (CUDA_CHECK
// too). Legacy cudaThreadSynchronize, fabs without <cmath>, event timing.
#include "device_arrays.h"

#define BLOCK 256
typedef float real;
#include "advect_kernels.cuh"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8192;
    int steps = argc > 2 ? atoi(argv[2]) : 50;
    real ratio = 0.4f;
    float *h_q = (float *)malloc(n * sizeof(float));
    float *h_vel = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        h_q[i] = (i > n / 4 && i < n / 2) ? 1.0f : 0.0f;
        h_vel[i] = 0.5f + 0.25f * (float)((i * 37) % 11) / 11.0f;
    }

    float *d_q = device_floats(n, "q"), *d_vel = device_floats(n, "vel");
    float *d_flux, *d_next;
    d_flux = device_floats(n, "flux");
    d_next = device_floats(n, "next");
    unsigned char *d_inflow;
    d_inflow = device_mask(n);

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    upload_floats(d_q, h_q, n);
    upload_floats(d_vel, h_vel, n);
    int blocks = (n + BLOCK - 1) / BLOCK;
    mark_inflow<<<blocks, BLOCK>>>(d_inflow, n);
    for (int s = 0; s < steps; s++) {
        upwind_flux<<<blocks, BLOCK>>>(d_flux, d_q, d_vel, n);
        update<<<blocks, BLOCK>>>(d_next, d_q, d_flux, d_inflow, ratio, n);
        float *swap = d_q;
        d_q = d_next;
        d_next = swap;
    }
    cudaThreadSynchronize();
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    CUDA_CHECK(cudaMemcpy(h_q, d_q, n * sizeof(float), cudaMemcpyDeviceToHost));
    double mass = 0.0, peak = 0.0;
    for (int i = 0; i < n; i++) {
        mass += h_q[i];
        if (fabs(h_q[i]) > peak)
            peak = fabs(h_q[i]);
    }
    printf("steps = %d, mass = %.6f, peak = %.6f, q[n/3] = %.6f\n", steps, mass, peak, h_q[n / 3]);
    printf("Kernel time: %.3f ms\n", ms);

    CUDA_CHECK(cudaFree(d_q));
    CUDA_CHECK(cudaFree(d_vel));
    CUDA_CHECK(cudaFree(d_flux));
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_inflow));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    free(h_q);
    free(h_vel);
    return 0;
}
