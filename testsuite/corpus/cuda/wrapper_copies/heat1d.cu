// heat1d.cu -- explicit 1-D heat equation; each step behind host wrappers (one launch and a
// check each), copies through copy_to_device/copy_to_host (device_io.h).
#include <cmath>
#include "device_io.h"

#define BLOCK 128

__global__ void diffuse(const float *u, float *v, float r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        v[i] = u[i] + r * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
    else if (i == 0 || i == n - 1)
        v[i] = 0.0f;
}

__global__ void heat_source(float *v, const float *q, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] += dt * q[i];
}

static void step(const float *u, float *v, float r, int n)
{
    diffuse<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(u, v, r, n);
    after_kernel("diffuse");
}

static void add_heat(float *v, const float *q, float dt, int n)
{
    heat_source<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(v, q, dt, n);
    after_kernel("heat_source");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int steps = argc > 2 ? atoi(argv[2]) : 8;
    float *h_u = (float *)malloc(n * sizeof(float));
    float *h_q = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        h_u[i] = sinf(3.14159265f * i / (n - 1));
        h_q[i] = (i > n / 3 && i < n / 2) ? 1.0f : 0.0f;
    }
    float *d_u = device_alloc(n), *d_v = device_alloc(n), *d_q = device_alloc(n);
    copy_to_device(d_u, h_u, n);
    copy_to_device(d_q, h_q, n);
    for (int t = 0; t < steps; t++) {
        step(d_u, d_v, 0.2f, n);
        add_heat(d_v, d_q, 0.01f, n);
        float *tmp = d_u;
        d_u = d_v;
        d_v = tmp;
    }
    copy_to_host(h_u, d_u, n);
    double total = 0.0, peak = 0.0;
    for (int i = 0; i < n; i++) {
        total += h_u[i];
        peak = fmax(peak, (double)h_u[i]);
    }
    printf("steps = %d, heat = %.6f, peak = %.6f\n", steps, total, peak);
    cudaFree(d_u);
    cudaFree(d_v);
    cudaFree(d_q);
    free(h_u);
    free(h_q);
    return 0;
}
