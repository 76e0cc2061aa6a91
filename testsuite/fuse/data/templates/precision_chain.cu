// One template chain run at two precisions: t = a * x + y, then z = t * t + x. The float
// chain's arguments are written out, the double chain's are deduced from its pointers.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <typename T>
__global__ void axpy(const T *x, const T *y, T *t, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void square_add(const T *t, const T *x, T *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    z[i] = t[i] * t[i] + x[i];
}

int main()
{
    const int n = 3000;
    float *hf = (float *)malloc(n * sizeof(float));
    double *hd = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i) {
        hf[i] = (i % 17) * 0.125f;
        hd[i] = (i % 23) * 0.0625;
    }
    float *xf, *yf, *tf, *zf;
    double *xd, *yd, *td, *zd;
    cudaMalloc(&xf, n * sizeof(float));
    cudaMalloc(&yf, n * sizeof(float));
    cudaMalloc(&tf, n * sizeof(float));
    cudaMalloc(&zf, n * sizeof(float));
    cudaMalloc(&xd, n * sizeof(double));
    cudaMalloc(&yd, n * sizeof(double));
    cudaMalloc(&td, n * sizeof(double));
    cudaMalloc(&zd, n * sizeof(double));
    cudaMemcpy(xf, hf, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(yf, hf, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(xd, hd, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(yd, hd, n * sizeof(double), cudaMemcpyHostToDevice);
    axpy<float><<<(n + 255) / 256, 256>>>(xf, yf, tf, 1.5f, n);
    square_add<float><<<(n + 255) / 256, 256>>>(tf, xf, zf, n);
    axpy<<<(n + 255) / 256, 256>>>(xd, yd, td, -0.5, n);
    square_add<<<(n + 255) / 256, 256>>>(td, xd, zd, n);
    cudaMemcpy(hf, zf, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, zd, n * sizeof(double), cudaMemcpyDeviceToHost);
    double sf = 0, sd = 0;
    for (int i = 0; i < n; ++i) {
        sf += hf[i];
        sd += hd[i];
    }
    printf("float %.3f double %.6f\n", sf, sd);
    cudaFree(xf);
    cudaFree(yf);
    cudaFree(tf);
    cudaFree(zf);
    cudaFree(xd);
    cudaFree(yd);
    cudaFree(td);
    cudaFree(zd);
    free(hf);
    free(hd);
    return 0;
}
