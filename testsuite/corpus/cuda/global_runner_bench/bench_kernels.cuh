// The benchmark's kernels (included by bench.cu; the word mask comes from bench_config.h,
// which bench.cu includes first).

template <typename T> __global__ void blend(T *out, const T *in, int count, T weight)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = weight * in[i] + (T)1 - weight;
}

__global__ void reverse_words(unsigned int *out, const unsigned int *in, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = in[count - 1 - i] ^ BENCH_WORD_MASK;
}

