/* nbody.cu: a small all-pairs gravity step in the style of CUDA 2.x/3.x era samples.
 * It calls cudaThreadSynchronize/cudaThreadExit (removed in CUDA 13) and uses sqrt, fabs
 * and ceil in host code without including <math.h>: nvcc's implicit runtime header brings
 * them in. Timing comes from the CUDA event API. */
#include <stdio.h>
#include <stdlib.h>

#define SOFTENING 0.01f
#define THREADS 64

typedef struct {
    float x, y, z, m;
} Body;

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),     \
                    __FILE__, __LINE__);                                              \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void accelerations(const float4 *pos, float3 *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 me = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 other = pos[j];
        float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
        float d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
        float inv = rsqrtf(d2);
        float s = other.w * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[i] = make_float3(ax, ay, az);
}

__global__ void integrate(float4 *pos, float3 *vel, const float3 *acc, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float3 v = vel[i];
    v.x += acc[i].x * dt;
    v.y += acc[i].y * dt;
    v.z += acc[i].z * dt;
    vel[i] = v;
    pos[i].x += v.x * dt;
    pos[i].y += v.y * dt;
    pos[i].z += v.z * dt;
}

static void init_bodies(float4 *pos, float3 *vel, int n)
{
    unsigned int seed = 12345u;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        float a = (float)(seed % 1000) / 1000.0f;
        seed = seed * 1103515245u + 12345u;
        float b = (float)(seed % 1000) / 1000.0f;
        pos[i] = make_float4(a - 0.5f, b - 0.5f, (a * b) - 0.25f, 1.0f / n);
        vel[i] = make_float3(0.0f, 0.0f, 0.0f);
    }
}

static double kinetic_energy(const float4 *pos, const float3 *vel, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += 0.5 * pos[i].w * (vel[i].x * vel[i].x + vel[i].y * vel[i].y + vel[i].z * vel[i].z);
    return e;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512;
    int steps = argc > 2 ? atoi(argv[2]) : 4;
    float dt = 0.01f;
    size_t pos_bytes = n * sizeof(float4), vel_bytes = n * sizeof(float3);

    float4 *h_pos = (float4 *)malloc(pos_bytes);
    float3 *h_vel = (float3 *)malloc(vel_bytes);
    init_bodies(h_pos, h_vel, n);

    float4 *d_pos;
    float3 *d_vel, *d_acc;
    CUDA_CHECK(cudaMalloc((void **)&d_pos, pos_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_vel, vel_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_acc, vel_bytes));
    CUDA_CHECK(cudaMemcpy(d_pos, h_pos, pos_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vel, h_vel, vel_bytes, cudaMemcpyHostToDevice));

    int blocks = (int)ceil((double)n / THREADS);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);
    for (int s = 0; s < steps; s++) {
        accelerations<<<blocks, THREADS>>>(d_pos, d_acc, n);
        integrate<<<blocks, THREADS>>>(d_pos, d_vel, d_acc, dt, n);
        CUDA_CHECK(cudaGetLastError());
    }
    cudaThreadSynchronize();
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);

    CUDA_CHECK(cudaMemcpy(h_pos, d_pos, pos_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_vel, d_vel, vel_bytes, cudaMemcpyDeviceToHost));
    double spread = 0.0;
    for (int i = 0; i < n; i++)
        spread += sqrt((double)(h_pos[i].x * h_pos[i].x + h_pos[i].y * h_pos[i].y));
    printf("bodies %d steps %d\n", n, steps);
    printf("kinetic energy %.6e\n", kinetic_energy(h_pos, h_vel, n));
    printf("mean radius %.6f max |x0| %.6f\n", spread / n, fabs(h_pos[0].x));
    printf("GPU time: %.3f ms\n", ms);

    cudaFree(d_pos);
    cudaFree(d_vel);
    cudaFree(d_acc);
    free(h_pos);
    free(h_vel);
    cudaThreadExit();
    return 0;
}
