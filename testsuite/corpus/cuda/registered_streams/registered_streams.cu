// registered_streams: the host memory is the program's own (posix_memalign), pinned with
// cudaHostRegister; device scheduling set with cudaSetDeviceFlags; the device buffer is first
// filled with cudaMemset and then (partly) overwritten by an asynchronous copy before any
// kernel runs (the kernel must see the copy); chunks on several streams; the CPU polls an
// event with cudaEventQuery while the device works. Written in the style of the vendor
// samples (simpleStreams, asyncAPI), not copied from them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define INNER_STEPS 4
#define NSTREAMS 4
#define THREADS 128

static __device__ __host__ int check_value(int old, int value) { return old == -1 ? value : old - 1; }

#include "pinned_buffer.h"
#include "stream_kernels.cuh"

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t status_ = (call);                                                     \
        if (status_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
            exit(EXIT_FAILURE);                                                           \
        }                                                                                 \
    } while (0)

static const char *sync_names[] = {"auto", "spin", "yield", "?", "blocking sync"};

static long checksum(const int *data, int n)
{
    long sum = 0;
    for (int i = 0; i < n; ++i) sum += (long)data[i] * (i % 7 + 1);
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int sync_method = argc > 2 ? atoi(argv[2]) : 4;
    if (n % (NSTREAMS * THREADS) != 0 || sync_method < 0 || sync_method > 4 || sync_method == 3) {
        fprintf(stderr, "usage: %s [n, a multiple of %d] [sync method 0|1|2|4]\n", argv[0],
                NSTREAMS * THREADS);
        return EXIT_FAILURE;
    }
    size_t bytes = n * sizeof(int);

    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    bool map_host = prop.canMapHostMemory != 0;
    printf("> device can map host memory: %s\n", map_host ? "yes" : "no");
    printf("> synchronisation: %s\n", sync_names[sync_method]);
    CHECK(cudaSetDeviceFlags(sync_method | (map_host ? cudaDeviceMapHost : 0)));
    unsigned int flags = 0;
    CHECK(cudaGetDeviceFlags(&flags));

    PinnedBuffer host;
    if (pin_buffer(&host, bytes, cudaHostRegisterPortable) != 0) return EXIT_FAILURE;
    for (int i = 0; i < n; ++i) host.data[i] = i % 97;

    int *d_data = NULL;
    CHECK(cudaMalloc((void **)&d_data, bytes));
    // every element -1 first; the copy then overwrites the first half before any kernel runs
    CHECK(cudaMemset(d_data, 255, bytes));
    CHECK(cudaMemcpyAsync(d_data, host.data, bytes / 2, cudaMemcpyHostToDevice, 0));
    fill_tail<<<n / 2 / THREADS, THREADS>>>(d_data, n / 2, 11, n);
    CHECK(cudaGetLastError());

    cudaStream_t streams[NSTREAMS];
    for (int s = 0; s < NSTREAMS; ++s) CHECK(cudaStreamCreate(&streams[s]));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));

    int chunk = n / NSTREAMS;
    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < NSTREAMS; ++s) {
        bump<<<chunk / THREADS, THREADS, 0, streams[s]>>>(d_data + s * chunk, s + 1, chunk);
        CHECK(cudaMemcpyAsync(host.data + s * chunk, d_data + s * chunk, chunk * sizeof(int),
                              cudaMemcpyDeviceToHost, streams[s]));
    }
    CHECK(cudaEventRecord(stop, 0));
    unsigned long polls = 0;
    while (cudaEventQuery(stop) == cudaErrorNotReady) ++polls;
    CHECK(cudaDeviceSynchronize());
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("time on the device: %.3f ms, CPU polled %lu times\n", ms, polls);

    // the same data again from a plain memset: a whole copy over it this time
    CHECK(cudaMemset(d_data, 0, bytes));
    CHECK(cudaMemcpy(d_data, host.data, bytes, cudaMemcpyHostToDevice));
    bump<<<n / THREADS, THREADS>>>(d_data, 1, n);
    CHECK(cudaMemcpy(host.data, d_data, bytes, cudaMemcpyDeviceToHost));

    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        int s = i / chunk;
        int before = i < n / 2 ? i % 97 : 11;
        int expected = before + INNER_STEPS * (s + 1) + INNER_STEPS;
        if (host.data[i] != expected && wrong++ < 5)
            printf("  data[%d] = %d, expected %d\n", i, host.data[i], expected);
    }
    printf("checksum %ld, flags %s\n", checksum(host.data, n), flags & cudaDeviceMapHost ? "map" : "plain");
    printf("%s\n", wrong ? "Test FAILED" : "Test PASSED");

    for (int s = 0; s < NSTREAMS; ++s) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_data));
    unpin_buffer(&host);
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
