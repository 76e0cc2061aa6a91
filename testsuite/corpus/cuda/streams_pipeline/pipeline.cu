// pipeline.cu: chunks of a vector go through two streams: async copy in, kernel, copy out,
// timed with events on each stream (serialized streams are a legal schedule).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const int kChunks = 4;
static const int kChunk = 1 << 14;

__global__ void polynomial(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[i] = ((0.5f * x + 1.0f) * x - 2.0f) * x + 3.0f;
    }
}

int main()
{
    const int n = kChunks * kChunk;
    float *h_in, *h_out;
    cudaMallocHost((void **)&h_in, n * sizeof(float));
    cudaHostAlloc((void **)&h_out, n * sizeof(float), cudaHostAllocDefault);
    for (int i = 0; i < n; ++i)
        h_in[i] = (i % 100) * 0.01f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaStream_t streams[2];
    for (int s = 0; s < 2; ++s)
        cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);
    cudaEvent_t begin, end;
    cudaEventCreate(&begin);
    cudaEventCreateWithFlags(&end, cudaEventDefault);
    cudaEventRecord(begin, streams[0]);
    for (int c = 0; c < kChunks; ++c) {
        cudaStream_t s = streams[c % 2];
        int off = c * kChunk;
        cudaMemcpyAsync(d_in + off, h_in + off, kChunk * sizeof(float), cudaMemcpyHostToDevice, s);
        polynomial<<<kChunk / 256, 256, 0, s>>>(d_in + off, d_out + off, kChunk);
        cudaMemcpyAsync(h_out + off, d_out + off, kChunk * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    for (int s = 0; s < 2; ++s)
        cudaStreamSynchronize(streams[s]);
    cudaEventRecord(end, streams[0]);
    cudaEventSynchronize(end);
    float ms;
    cudaEventElapsedTime(&ms, begin, end);
    double sum = 0;
    for (int i = 0; i < n; ++i)
        sum += h_out[i];
    printf("checksum %.3f\n", sum);
    printf("elapsed %.3f ms\n", ms);
    for (int s = 0; s < 2; ++s)
        cudaStreamDestroy(streams[s]);
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    return 0;
}
