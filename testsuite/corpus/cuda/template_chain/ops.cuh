// ops.cuh -- templated element-wise kernels and the host templates that launch them.
#ifndef OPS_CUH
#define OPS_CUH

template <typename T>
__global__ void axpy_kernel(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void square_kernel(T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] * y[i];
}

#endif
