// chain.cu -- a chain of masses on springs in 3-D. The x, y, z coordinates share one
// cudaMalloc (fields at d_pos, d_pos + n, d_pos + 2 * n), the forces another; the running
// energy ping-pongs between two buffers chosen by the step's parity; only the z field comes
// back at the end (a partial copy into &h_pos[2 * n]). Timing from timer.h.
#include <cstdio>
#include <cstdlib>
#include "timer.h"

#define BLOCK 64

struct Chain {
    int n;
    float k;
    float g;
};

#include "pack_kernels.cuh"

int main(int argc, char **argv)
{
    Chain c;
    c.n = argc > 1 ? atoi(argv[1]) : 640;
    int steps = argc > 2 ? atoi(argv[2]) : 6;
    c.k = 0.3f;
    c.g = 0.01f;
    int n = c.n;
    int blocks = (n + BLOCK - 1) / BLOCK;
    float dt = 0.05f;

    float *h_pos = (float *)malloc(3 * n * sizeof(float));
    float *h_mass = (float *)malloc(n * sizeof(float));
    float *h_force = (float *)malloc(3 * n * sizeof(float));
    float *h_energy = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        h_pos[i] = (float)i;
        h_pos[n + i] = (float)(i % 7) * 0.5f;
        h_pos[2 * n + i] = (float)((i * 5) % 11) * 0.25f;
        h_mass[i] = 1.0f + (float)(i % 4);
    }

    float *d_pos, *d_mass, *d_force, *d_energy_a, *d_energy_b;
    cudaMalloc((void **)&d_pos, 3 * n * sizeof(float));
    cudaMalloc((void **)&d_mass, n * sizeof(float));
    cudaMalloc((void **)&d_force, 3 * n * sizeof(float));
    cudaMalloc((void **)&d_energy_a, n * sizeof(float));
    cudaMalloc((void **)&d_energy_b, n * sizeof(float));
    cudaMemcpy(d_pos, h_pos, 3 * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_mass, h_mass, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_energy_a, 0, n * sizeof(float));

    double t0 = wall_ms();
    for (int s = 0; s < steps; s++) {
        springs<<<blocks, BLOCK>>>(d_pos, d_pos + n, d_pos + 2 * n, d_mass, d_force, c);
        drift<<<blocks, BLOCK>>>(d_pos + 2 * n, d_force + 2 * n, dt, n);
        float *e_old = (s % 2) ? d_energy_b : d_energy_a;
        float *e_new = (s % 2) ? d_energy_a : d_energy_b;
        energy<<<blocks, BLOCK>>>(d_force, e_old, e_new, n);
    }
    cudaDeviceSynchronize();
    double t1 = wall_ms();

    cudaMemcpy(h_force, d_force, 3 * n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&h_pos[2 * n], d_pos + 2 * n, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_energy, (steps % 2) ? d_energy_b : d_energy_a, n * sizeof(float), cudaMemcpyDeviceToHost);

    double zsum = 0.0, fsum = 0.0, esum = 0.0;
    for (int i = 0; i < n; i++) {
        zsum += h_pos[2 * n + i];
        fsum += h_force[i] + h_force[n + i] + h_force[2 * n + i];
        esum += h_energy[i];
    }
    printf("masses %d, steps %d\n", n, steps);
    printf("z sum %.4f, force sum %.4f, energy sum %.4f\n", zsum, fsum, esum);
    printf("x[1] %.3f (never copied back)\n", h_pos[1]);
    printf("Elapsed %.3f ms\n", t1 - t0);

    cudaFree(d_pos);
    cudaFree(d_mass);
    cudaFree(d_force);
    cudaFree(d_energy_a);
    cudaFree(d_energy_b);
    free(h_pos);
    free(h_mass);
    free(h_force);
    free(h_energy);
    return 0;
}
