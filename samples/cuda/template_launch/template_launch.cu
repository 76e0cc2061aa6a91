/*
 * template_launch.cu -- templated kernels launched from a templated host
 * function, instantiated for float and double.
 *
 * For each element type T (and a block size BS that is a template
 * parameter, so the shared-memory array has a compile-time size):
 *
 *     y = a*x + y                      axpy_kernel<T>
 *     partial[b] = sum over block b    sum_squares_kernel<T, BS>
 *                  of alpha * y^2
 *
 * run_case<T, BS>() owns the whole host side: allocation, copies, the two
 * launches with template arguments, copy back, printing.  main()
 * instantiates it as run_case<float, 128> and run_case<double, 256>.
 *
 * The data are quarter integers, so both precisions print the same exact
 * numbers.
 *
 * Usage: template_launch [n]       (default 200000)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error: %s (%s:%d)\n",                     \
                    cudaGetErrorString(e), __FILE__, __LINE__);             \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

template <typename T>
__device__ __forceinline__ T square(T v)
{
    return v * v;
}

template <typename T>
__global__ void axpy_kernel(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

template <typename T, int BS>
__global__ void sum_squares_kernel(const T *y, T *partial, T alpha, int n)
{
    __shared__ T buf[BS];

    int tid = threadIdx.x;
    int i = blockIdx.x * BS + tid;
    buf[tid] = (i < n) ? alpha * square(y[i]) : T(0);
    __syncthreads();

    for (int s = BS / 2; s > 0; s >>= 1) {
        if (tid < s)
            buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = buf[0];
}

template <typename T, int BS>
void run_case(const char *label, int n)
{
    const T a = T(1.5);
    const T alpha = T(0.5);
    int blocks = (n + BS - 1) / BS;

    T *h_x = (T *)malloc(n * sizeof(T));
    T *h_y = (T *)malloc(n * sizeof(T));
    T *h_partial = (T *)malloc(blocks * sizeof(T));
    for (int i = 0; i < n; ++i) {
        h_x[i] = T(0.5) * T(i % 9 - 4);
        h_y[i] = T(0.25) * T(i % 4);
    }

    T *d_x, *d_y, *d_partial;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, h_y, n * sizeof(T), cudaMemcpyHostToDevice));

    axpy_kernel<T><<<blocks, BS>>>(a, d_x, d_y, n);
    sum_squares_kernel<T, BS><<<blocks, BS>>>(d_y, d_partial, alpha, n);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(h_y, d_y, n * sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_partial, d_partial, blocks * sizeof(T),
                          cudaMemcpyDeviceToHost));

    double total = 0.0, ysum = 0.0;
    for (int b = 0; b < blocks; ++b)
        total += (double)h_partial[b];
    for (int i = 0; i < n; ++i)
        ysum += (double)h_y[i];

    printf("[%s] BS=%d blocks=%d sizeof=%d\n", label, BS, blocks, (int)sizeof(T));
    printf("[%s] sum(y) = %.10g\n", label, ysum);
    printf("[%s] 0.5*sum(y^2) = %.10g\n", label, total);
    printf("[%s] y[0]=%.6g y[%d]=%.6g partial[0]=%.6g partial[%d]=%.6g\n",
           label, (double)h_y[0], n - 1, (double)h_y[n - 1],
           (double)h_partial[0], blocks - 1, (double)h_partial[blocks - 1]);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_partial));
    free(h_x);
    free(h_y);
    free(h_partial);
}

int main(int argc, char **argv)
{
    int n = 200000;
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n]\n", argv[0]);
        return 1;
    }
    printf("template_launch n=%d\n", n);
    run_case<float, 128>("float", n);
    run_case<double, 256>("double", n);
    return 0;
}
