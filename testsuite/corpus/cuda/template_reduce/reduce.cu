// reduce.cu: block-wise sum reduction with the block size as a template parameter
// (shared memory, barriers), partial sums finished on the host; two instantiations.
#include <cstdio>
#include <vector>

template <unsigned int BLOCK>
__global__ void block_sum(const float *in, float *partial, int n)
{
    __shared__ float cache[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK * 2 + t;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
    cache[t] = v;
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) cache[t] += cache[t + s];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = cache[0];
}

static double finish(const std::vector<float> &partial)
{
    double s = 0;
    for (float p : partial) s += p;
    return s;
}

int main()
{
    const int n = 100003;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = (i % 10) * 0.5f;
    float *d_in, *d_partial;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const int blocks256 = (n + 511) / 512, blocks64 = (n + 127) / 128;
    cudaMalloc(&d_partial, blocks64 * sizeof(float));
    std::vector<float> p256(blocks256), p64(blocks64);
    block_sum<256><<<blocks256, 256>>>(d_in, d_partial, n);
    cudaMemcpy(p256.data(), d_partial, blocks256 * sizeof(float), cudaMemcpyDeviceToHost);
    block_sum<64><<<blocks64, 64>>>(d_in, d_partial, n);
    cudaMemcpy(p64.data(), d_partial, blocks64 * sizeof(float), cudaMemcpyDeviceToHost);
    double expect = 0;
    for (float v : h) expect += v;
    std::printf("sum<256> = %.1f sum<64> = %.1f expected %.1f\n", finish(p256), finish(p64), expect);
    cudaFree(d_in);
    cudaFree(d_partial);
    return 0;
}
