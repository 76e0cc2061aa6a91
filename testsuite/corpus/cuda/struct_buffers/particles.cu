// particles.cu -- 1-D particles on springs; the device arrays live in a Buffers struct that
// make_buffers fills with cudaMalloc(&b.x, ...), kernels take the struct's members.
#include <cstdio>
#include <cstdlib>
#include "buffers.h"

Buffers make_buffers(int n)
{
    Buffers b;
    b.n = n;
    cudaMalloc((void **)&b.pos, n * sizeof(float));
    cudaMalloc((void **)&b.vel, n * sizeof(float));
    cudaMalloc((void **)&b.force, n * sizeof(float));
    return b;
}

void free_buffers(Buffers &b)
{
    cudaFree(b.pos);
    cudaFree(b.vel);
    cudaFree(b.force);
}

__global__ void spring_force(const float *pos, float *force, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float left = i > 0 ? pos[i - 1] : pos[i];
    float right = i < n - 1 ? pos[i + 1] : pos[i];
    force[i] = k * (left + right - 2.0f * pos[i]);
}

__global__ void integrate(float *pos, float *vel, const float *force, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        vel[i] += dt * force[i];
        pos[i] += dt * vel[i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512;
    int steps = argc > 2 ? atoi(argv[2]) : 5;
    float *h_pos = (float *)malloc(n * sizeof(float));
    float *h_vel = (float *)calloc(n, sizeof(float));
    for (int i = 0; i < n; i++)
        h_pos[i] = (i % 32 == 0) ? 1.0f : 0.0f;

    Buffers b = make_buffers(n);
    cudaMemcpy(b.pos, h_pos, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(b.vel, h_vel, n * sizeof(float), cudaMemcpyHostToDevice);
    int threads = 128, blocks = (n + threads - 1) / threads;
    for (int s = 0; s < steps; s++) {
        spring_force<<<blocks, threads>>>(b.pos, b.force, 4.0f, n);
        integrate<<<blocks, threads>>>(b.pos, b.vel, b.force, 0.05f, n);
    }
    cudaMemcpy(h_pos, b.pos, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_vel, b.vel, n * sizeof(float), cudaMemcpyDeviceToHost);
    double energy = 0.0;
    for (int i = 0; i < n; i++)
        energy += 0.5 * h_vel[i] * h_vel[i];
    printf("n = %d, steps = %d, kinetic = %.8f, pos[0] = %.6f\n", n, steps, energy, h_pos[0]);
    free_buffers(b);
    free(h_pos);
    free(h_vel);
    return 0;
}
