/*
 * cg_steps.cu -- three conjugate-gradient iterations for a tridiagonal SPD
 * system, the sparse matrix-vector product on the CPU, the rest on the GPU.
 *
 * The conjugate-gradient row of Kessler's Table 4: per iteration the host
 * computes q = A p (A = tridiag(-1, 2.5, -1), not stored), and seven small
 * GPU kernels compute p.q, x += alpha p, r -= alpha q, r.r, beta and the new
 * p.  Straight-line host code with one device scalar per iteration for r.r,
 * p.q and beta; p comes back for the next host SpMV, the residual norms
 * are printed at the end.
 *
 * Dot products reduce in one block in a fixed order, so results are
 * reproducible.
 *
 * Usage: cg_steps [n]          (default n = 4096)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

/* out[0] = x . y, one block of BLOCK threads */
__global__ void dot(int n, const float *x, const float *y, float *out)
{
    __shared__ float part[BLOCK];
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += BLOCK)
        s += x[i] * y[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = part[0];
}

/* y += (num[0] / den[0]) * x */
__global__ void axpy_ratio(int n, const float *num, const float *den, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += num[0] / den[0] * x[i];
}

/* y -= (num[0] / den[0]) * x */
__global__ void axmy_ratio(int n, const float *num, const float *den, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] -= num[0] / den[0] * x[i];
}

__global__ void ratio(const float *num, const float *den, float *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = num[0] / den[0];
}

/* p = r + beta[0] * p */
__global__ void update_p(int n, const float *beta, const float *r, float *p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = r[i] + beta[0] * p[i];
}

/* q = A p on the host, A = tridiag(-1, 2.5, -1) */
static void spmv_host(int n, const float *p, float *q)
{
    for (int i = 0; i < n; ++i) {
        float s = 2.5f * p[i];
        if (i > 0)
            s -= p[i - 1];
        if (i + 1 < n)
            s -= p[i + 1];
        q[i] = s;
    }
}

int main(int argc, char **argv)
{
    int n = 4096;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n>0]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * sizeof(float);
    size_t one = sizeof(float);
    int blocks = (n + BLOCK - 1) / BLOCK;

    float *h_x = (float *)malloc(bytes);
    float *h_r = (float *)malloc(bytes);
    float *h_p = (float *)malloc(bytes);
    float *h_q = (float *)malloc(bytes);
    float *h_rr0 = (float *)malloc(one);
    float *h_rr1 = (float *)malloc(one);
    float *h_rr2 = (float *)malloc(one);
    float *h_rr3 = (float *)malloc(one);
    if (!h_x || !h_r || !h_p || !h_q || !h_rr0 || !h_rr1 || !h_rr2 || !h_rr3) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.0f;
        h_r[i] = 0.25f * (float)(i % 5) - 0.5f;   /* b, and r = b - A x for x = 0 */
        h_p[i] = h_r[i];
    }

    float *d_x, *d_r, *d_p, *d_q;
    float *d_rr0, *d_rr1, *d_rr2, *d_rr3;
    float *d_pq0, *d_pq1, *d_pq2, *d_beta0, *d_beta1, *d_beta2;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_r, bytes);
    cudaMalloc((void **)&d_p, bytes);
    cudaMalloc((void **)&d_q, bytes);
    cudaMalloc((void **)&d_rr0, one);
    cudaMalloc((void **)&d_rr1, one);
    cudaMalloc((void **)&d_rr2, one);
    cudaMalloc((void **)&d_rr3, one);
    cudaMalloc((void **)&d_pq0, one);
    cudaMalloc((void **)&d_pq1, one);
    cudaMalloc((void **)&d_pq2, one);
    cudaMalloc((void **)&d_beta0, one);
    cudaMalloc((void **)&d_beta1, one);
    cudaMalloc((void **)&d_beta2, one);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_r, h_r, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_p, h_p, bytes, cudaMemcpyHostToDevice);
    dot<<<1, BLOCK>>>(n, d_r, d_r, d_rr0);
    cudaMemcpy(h_rr0, d_rr0, one, cudaMemcpyDeviceToHost);

    /* iteration 0 */
    spmv_host(n, h_p, h_q);
    cudaMemcpy(d_q, h_q, bytes, cudaMemcpyHostToDevice);
    dot<<<1, BLOCK>>>(n, d_p, d_q, d_pq0);
    axpy_ratio<<<blocks, BLOCK>>>(n, d_rr0, d_pq0, d_p, d_x);
    axmy_ratio<<<blocks, BLOCK>>>(n, d_rr0, d_pq0, d_q, d_r);
    dot<<<1, BLOCK>>>(n, d_r, d_r, d_rr1);
    ratio<<<1, 1>>>(d_rr1, d_rr0, d_beta0);
    update_p<<<blocks, BLOCK>>>(n, d_beta0, d_r, d_p);
    cudaMemcpy(h_p, d_p, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_rr1, d_rr1, one, cudaMemcpyDeviceToHost);

    /* iteration 1 */
    spmv_host(n, h_p, h_q);
    cudaMemcpy(d_q, h_q, bytes, cudaMemcpyHostToDevice);
    dot<<<1, BLOCK>>>(n, d_p, d_q, d_pq1);
    axpy_ratio<<<blocks, BLOCK>>>(n, d_rr1, d_pq1, d_p, d_x);
    axmy_ratio<<<blocks, BLOCK>>>(n, d_rr1, d_pq1, d_q, d_r);
    dot<<<1, BLOCK>>>(n, d_r, d_r, d_rr2);
    ratio<<<1, 1>>>(d_rr2, d_rr1, d_beta1);
    update_p<<<blocks, BLOCK>>>(n, d_beta1, d_r, d_p);
    cudaMemcpy(h_p, d_p, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_rr2, d_rr2, one, cudaMemcpyDeviceToHost);

    /* iteration 2 */
    spmv_host(n, h_p, h_q);
    cudaMemcpy(d_q, h_q, bytes, cudaMemcpyHostToDevice);
    dot<<<1, BLOCK>>>(n, d_p, d_q, d_pq2);
    axpy_ratio<<<blocks, BLOCK>>>(n, d_rr2, d_pq2, d_p, d_x);
    axmy_ratio<<<blocks, BLOCK>>>(n, d_rr2, d_pq2, d_q, d_r);
    dot<<<1, BLOCK>>>(n, d_r, d_r, d_rr3);
    ratio<<<1, 1>>>(d_rr3, d_rr2, d_beta2);
    update_p<<<blocks, BLOCK>>>(n, d_beta2, d_r, d_p);
    cudaMemcpy(h_p, d_p, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_rr3, d_rr3, one, cudaMemcpyDeviceToHost);

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(h_x, d_x, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_r, d_r, bytes, cudaMemcpyDeviceToHost);

    double checksum = 0.0, rsum = 0.0;
    for (int i = 0; i < n; ++i) {
        checksum += (i % 7 + 1) * (double)h_x[i];
        rsum += (double)h_r[i] * h_r[i];
    }
    printf("cg n=%d iterations=3\n", n);
    printf("rr0 = %.9g\n", h_rr0[0]);
    printf("rr1 = %.9g\n", h_rr1[0]);
    printf("rr2 = %.9g\n", h_rr2[0]);
    printf("rr3 = %.9g\n", h_rr3[0]);
    printf("r.r recomputed %.9g\n", rsum);
    printf("x checksum %.10g\n", checksum);
    printf("p[0] = %.9g p[n-1] = %.9g\n", h_p[0], h_p[n - 1]);

    cudaFree(d_x);
    cudaFree(d_r);
    cudaFree(d_p);
    cudaFree(d_q);
    cudaFree(d_rr0);
    cudaFree(d_rr1);
    cudaFree(d_rr2);
    cudaFree(d_rr3);
    cudaFree(d_pq0);
    cudaFree(d_pq1);
    cudaFree(d_pq2);
    cudaFree(d_beta0);
    cudaFree(d_beta1);
    cudaFree(d_beta2);
    free(h_x);
    free(h_r);
    free(h_p);
    free(h_q);
    free(h_rr0);
    free(h_rr1);
    free(h_rr2);
    free(h_rr3);
    return 0;
}
