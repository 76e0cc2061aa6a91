// The block size as a non-type template parameter used in the body: each block reverses its
// tile of the input through shared memory, then a second kernel of the same block size adds
// a per-block offset.
#include <cstdio>
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void reverse_tiles(const float *in, float *out, int n)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    tile[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    int j = blockIdx.x * BLOCK + (BLOCK - 1 - t);
    if (i < n && j < n)
        out[i] = tile[BLOCK - 1 - t];
}

template <int BLOCK>
__global__ void add_block(float *out, float step, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        out[i] += step * blockIdx.x;
}

int main()
{
    const int n = 4096;
    static float h[4096];
    for (int i = 0; i < n; ++i)
        h[i] = (i % 29) * 0.25f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
    reverse_tiles<128><<<n / 128, 128>>>(d_in, d_out, n);
    add_block<128><<<n / 128, 128>>>(d_out, 0.5f, n);
    cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += h[i] * (i % 7);
    printf("weighted sum %.2f\n", s);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
