/*
 * nbody.cu -- direct all-pairs gravitational n-body simulation.
 *
 * Positions are float4 (x, y, z, mass), velocities float4 (w unused).
 * Each step runs two kernels:
 *   compute_forces  every body accumulates the softened acceleration from
 *                   all bodies; the j loop is tiled through shared memory
 *                   (GPU Gems 3, ch. 31) and uses rsqrtf
 *   integrate       leapfrog-style velocity / position update that reads the
 *                   old positions and writes a second position buffer
 * and the host swaps the two position buffers.  Positions and velocities
 * are copied back once at the end.
 *
 * rsqrtf is approximate, so the printed values carry 5 significant digits
 * and are compared with a relative tolerance.
 *
 * Usage: nbody [n [steps]]      (default 1000 10)
 */
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define BLOCK 256
#define SOFTENING2 0.05f

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) {                                          \
            fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,  \
                    cudaGetErrorString(err_));                              \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

__device__ float3 body_body_interaction(float4 bi, float4 bj, float3 ai)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;

    float dist_sqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING2;
    float inv_dist = rsqrtf(dist_sqr);
    float inv_dist3 = inv_dist * inv_dist * inv_dist;
    float s = bj.w * inv_dist3;

    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void compute_forces(const float4 *pos, float4 *acc, int n)
{
    __shared__ float4 tile[BLOCK];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 my_pos = (i < n) ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);

    for (int base = 0; base < n; base += BLOCK) {
        int j = base + threadIdx.x;
        /* padding bodies have zero mass and contribute nothing */
        tile[threadIdx.x] = (j < n) ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();

        for (int k = 0; k < BLOCK; ++k)
            a = body_body_interaction(my_pos, tile[k], a);
        __syncthreads();
    }

    if (i < n)
        acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

__global__ void integrate(const float4 *pos_in, float4 *pos_out, float4 *vel,
                          const float4 *acc, float dt, float damping, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float4 p = pos_in[i];
    float4 v = vel[i];
    float4 a = acc[i];

    v.x = (v.x + a.x * dt) * damping;
    v.y = (v.y + a.y * dt) * damping;
    v.z = (v.z + a.z * dt) * damping;

    p.x += v.x * dt;
    p.y += v.y * dt;
    p.z += v.z * dt;

    pos_out[i] = p;    /* p.w (mass) is carried over */
    vel[i] = v;
}

/* small deterministic generator so the input does not depend on libc rand */
static unsigned int lcg_state = 12345u;
static unsigned int lcg_next(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

static void init_bodies(float4 *pos, float4 *vel, int n)
{
    for (int i = 0; i < n; ++i) {
        /* coordinates in [1, 9) on a 1/128 lattice, masses 1 .. 1.75 */
        pos[i].x = 1.0f + (float)(lcg_next() % 1024) / 128.0f;
        pos[i].y = 1.0f + (float)(lcg_next() % 1024) / 128.0f;
        pos[i].z = 1.0f + (float)(lcg_next() % 1024) / 128.0f;
        pos[i].w = 1.0f + 0.25f * (float)(i % 4);
        vel[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
}

int main(int argc, char **argv)
{
    int n = 1000;
    int steps = 10;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    if (n < 1 || steps < 0) {
        fprintf(stderr, "usage: %s [n [steps]]\n", argv[0]);
        return 1;
    }

    const float dt = 0.001f;
    const float damping = 0.995f;

    size_t bytes = (size_t)n * sizeof(float4);
    float4 *h_pos = (float4 *)malloc(bytes);
    float4 *h_vel = (float4 *)malloc(bytes);
    init_bodies(h_pos, h_vel, n);

    float4 *d_pos[2], *d_vel, *d_acc;
    CUDA_CHECK(cudaMalloc(&d_pos[0], bytes));
    CUDA_CHECK(cudaMalloc(&d_pos[1], bytes));
    CUDA_CHECK(cudaMalloc(&d_vel, bytes));
    CUDA_CHECK(cudaMalloc(&d_acc, bytes));

    CUDA_CHECK(cudaMemcpy(d_pos[0], h_pos, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vel, h_vel, bytes, cudaMemcpyHostToDevice));

    int blocks = (n + BLOCK - 1) / BLOCK;
    int cur = 0;
    for (int s = 0; s < steps; ++s) {
        compute_forces<<<blocks, BLOCK>>>(d_pos[cur], d_acc, n);
        integrate<<<blocks, BLOCK>>>(d_pos[cur], d_pos[1 - cur], d_vel, d_acc,
                                     dt, damping, n);
        cur = 1 - cur;
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_pos, d_pos[cur], bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_vel, d_vel, bytes, cudaMemcpyDeviceToHost));

    double mass = 0.0, cx = 0.0, cy = 0.0, cz = 0.0, kinetic = 0.0;
    for (int i = 0; i < n; ++i) {
        double m = h_pos[i].w;
        mass += m;
        cx += m * h_pos[i].x;
        cy += m * h_pos[i].y;
        cz += m * h_pos[i].z;
        kinetic += 0.5 * m * ((double)h_vel[i].x * h_vel[i].x +
                              (double)h_vel[i].y * h_vel[i].y +
                              (double)h_vel[i].z * h_vel[i].z);
    }

    printf("nbody n=%d steps=%d dt=%g\n", n, steps, dt);
    printf("total mass %.4e\n", mass);
    printf("center of mass %.4e %.4e %.4e\n", cx / mass, cy / mass, cz / mass);
    printf("kinetic energy %.4e\n", kinetic);
    int probe[4] = {0, 1, n / 2, n - 1};
    for (int k = 0; k < 4; ++k) {
        int i = probe[k];
        double speed = sqrt((double)h_vel[i].x * h_vel[i].x +
                            (double)h_vel[i].y * h_vel[i].y +
                            (double)h_vel[i].z * h_vel[i].z);
        printf("body %d pos %.4e %.4e %.4e speed %.4e\n", i, h_pos[i].x,
               h_pos[i].y, h_pos[i].z, speed);
    }

    CUDA_CHECK(cudaFree(d_pos[0]));
    CUDA_CHECK(cudaFree(d_pos[1]));
    CUDA_CHECK(cudaFree(d_vel));
    CUDA_CHECK(cudaFree(d_acc));
    free(h_pos);
    free(h_vel);
    return 0;
}
