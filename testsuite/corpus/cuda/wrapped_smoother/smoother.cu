// smoother.cu -- relaxation of a 1-D signal towards a target: each sweep blurs the signal
// and pulls the blurred values towards the target, each step behind a static host wrapper
// (one launch, then check_kernel); copies through upload/download, the final norm through
// LAUNCH_CHECK (gpu_util.h).
#include <sys/time.h>
#include "gpu_util.h"

#define THREADS 128

__global__ void blur_k(const float *u, float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float left = i > 0 ? u[i - 1] : u[i];
    float right = i < n - 1 ? u[i + 1] : u[i];
    v[i] = 0.25f * left + 0.5f * u[i] + 0.25f * right;
}

__global__ void pull_k(float *v, const float *target, float rate, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] += rate * (target[i] - v[i]);
}

__global__ void copy_back_k(float *u, const float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        u[i] = v[i];
}

__global__ void square_k(const float *u, const float *target, float *err, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        err[i] = (u[i] - target[i]) * (u[i] - target[i]);
}

static void blur(const float *d_in, float *d_out, int n)
{
    blur_k<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_in, d_out, n);
    check_kernel("blur_k");
}

static void pull(float *d_val, const float *d_target, float rate, int n)
{
    pull_k<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_val, d_target, rate, n);
    check_kernel("pull_k");
}

static double seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    int sweeps = argc > 2 ? atoi(argv[2]) : 6;
    float *h_u = (float *)malloc(n * sizeof(float));
    float *h_target = (float *)malloc(n * sizeof(float));
    float *h_err = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        h_u[i] = (i % 64 < 32) ? 1.0f : -1.0f;
        h_target[i] = 0.5f * (float)(i % 7) / 6.0f;
    }
    float *d_u, *d_v, *d_target, *d_err;
    cudaMalloc((void **)&d_u, n * sizeof(float));
    cudaMalloc((void **)&d_v, n * sizeof(float));
    cudaMalloc((void **)&d_target, n * sizeof(float));
    cudaMalloc((void **)&d_err, n * sizeof(float));
    double start = seconds();
    upload(d_u, h_u, n);
    upload(d_target, h_target, n);
    for (int s = 0; s < sweeps; s++) {
        blur(d_u, d_v, n);
        pull(d_v, d_target, 0.1f, n);
        LAUNCH_CHECK(copy_back_k, (n + THREADS - 1) / THREADS, THREADS, d_u, d_v, n);
    }
    LAUNCH_CHECK(square_k, (n + THREADS - 1) / THREADS, THREADS, d_u, d_target, d_err, n);
    download(h_u, d_u, n);
    download(h_err, d_err, n);
    double elapsed = seconds() - start;
    double sum = 0.0, err = 0.0;
    for (int i = 0; i < n; i++) {
        sum += h_u[i];
        err += h_err[i];
    }
    printf("n = %d, sweeps = %d, sum = %.6f, squared error = %.6f\n", n, sweeps, sum, err);
    printf("Elapsed: %.3f ms\n", 1e3 * elapsed);
    cudaFree(d_u);
    cudaFree(d_v);
    cudaFree(d_target);
    cudaFree(d_err);
    free(h_u);
    free(h_target);
    free(h_err);
    return 0;
}
