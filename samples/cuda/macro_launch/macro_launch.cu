/*
 * macro_launch.cu -- kernel launches and API calls hidden behind macros.
 *
 * Many production codes never spell out `<<<...>>>` at the call site:
 * launches go through a LAUNCH macro that derives the grid from the
 * problem size, and every runtime call is wrapped in CUDA_CHECK.  This
 * program computes
 *
 *     x   = iota (generated on the device)
 *     v   = (alpha*x + beta*y)^2
 *     hist = histogram of v in NBINS bins over [0, HIST_MAX)
 *
 * The histogram lives in managed memory (cudaMallocManaged): the host
 * zeroes it and reads it directly, after a cudaDeviceSynchronize.
 *
 * Usage: macro_launch [n]       (default 300000)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err__ = (call);                                         \
        if (err__ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %d (%s) at %s:%d: %s\n",            \
                    (int)err__, cudaGetErrorString(err__), __FILE__,        \
                    __LINE__, #call);                                       \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

/* launch k over n elements with 256-thread blocks */
#define LAUNCH(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)
/* same, with an explicit block size */
#define LAUNCH_BS(k, n, bs, ...) k<<<((n) + (bs) - 1) / (bs), (bs)>>>(__VA_ARGS__)
#define CHECK_LAST_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define NBINS 16
#define HIST_MAX 32.0f

__global__ void iota_kernel(float *x, float step, float offset, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = step * (float)(i % 64) + offset;
}

__global__ void axpby_kernel(const float *x, const float *y, float *out,
                             float alpha, float beta, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = alpha * x[i] + beta * y[i];
}

__global__ void square_kernel(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * v[i];
}

__global__ void histogram_kernel(const float *v, int *hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bin = (int)(v[i] * (NBINS / HIST_MAX));
        if (bin < 0)
            bin = 0;
        if (bin >= NBINS)
            bin = NBINS - 1;
        atomicAdd(&hist[bin], 1);
    }
}

int main(int argc, char **argv)
{
    int n = 300000;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * sizeof(float);

    float *h_y = (float *)malloc(bytes);
    float *h_v = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i)
        h_y[i] = 0.25f * (float)((7 * i) % 11 - 5);

    float *d_x, *d_y, *d_v;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_v, bytes));
    CUDA_CHECK(cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice));

    int *hist;
    CUDA_CHECK(cudaMallocManaged(&hist, NBINS * sizeof(int)));
    memset(hist, 0, NBINS * sizeof(int));

    LAUNCH(iota_kernel, n, d_x, 0.125f, -2.0f, n);
    CHECK_LAST_LAUNCH();
    LAUNCH(axpby_kernel, n, d_x, d_y, d_v, 0.5f, 2.0f, n);
    CHECK_LAST_LAUNCH();
    LAUNCH_BS(square_kernel, n, 128, d_v, n);
    CHECK_LAST_LAUNCH();
    LAUNCH(histogram_kernel, n, d_v, hist, n);
    CHECK_LAST_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_v, d_v, bytes, cudaMemcpyDeviceToHost));

    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += h_v[i];

    printf("macro_launch n=%d\n", n);
    printf("sum(v) = %.10g\n", sum);
    printf("v[0] = %.6g  v[5] = %.6g  v[%d] = %.6g\n", h_v[0], h_v[5], n - 1,
           h_v[n - 1]);
    long total = 0;
    for (int b = 0; b < NBINS; ++b) {
        printf("hist[%2d] [%5.1f, %5.1f) %d\n", b, b * (HIST_MAX / NBINS),
               (b + 1) * (HIST_MAX / NBINS), hist[b]);
        total += hist[b];
    }
    printf("total %ld\n", total);

    CUDA_CHECK(cudaFree(hist));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_v));
    free(h_y);
    free(h_v);
    return 0;
}
