// chain.cu -- the same update in float and double: main calls run_precision<T>, which calls
// the launching templates axpy<T> and square<T> (kernels in ops.cuh).
#include <cstdio>
#include <cstdlib>
#include "ops.cuh"

template <typename T>
void axpy(T a, const T *x, T *y, int n)
{
    axpy_kernel<T><<<(n + 63) / 64, 64>>>(a, x, y, n);
}

template <typename T>
void square(T *y, int n)
{
    square_kernel<<<(n + 63) / 64, 64>>>(y, n);
}

template <typename T>
double run_precision(int n, int reps)
{
    T *h = (T *)malloc(n * sizeof(T));
    for (int i = 0; i < n; i++)
        h[i] = (T)((i % 7) * 0.125);
    T *dx, *dy;
    cudaMalloc((void **)&dx, n * sizeof(T));
    cudaMalloc((void **)&dy, n * sizeof(T));
    cudaMemcpy(dx, h, n * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, h, n * sizeof(T), cudaMemcpyHostToDevice);
    for (int r = 0; r < reps; r++) {
        axpy<T>((T)0.5, dx, dy, n);
        square(dy, n);
    }
    cudaMemcpy(h, dy, n * sizeof(T), cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += h[i];
    cudaFree(dx);
    cudaFree(dy);
    free(h);
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 700;
    printf("float:  %.5f\n", run_precision<float>(n, 2));
    printf("double: %.10f\n", run_precision<double>(n, 2));
    return 0;
}
