// gpu_check.h -- error checks and device selection in the style of a vendor sample's helper
// header: found through -Iinclude as <gpu_check.h>; its host code is guarded by the CUDA
// runtime's include guards, as the vendor's helper is, so a file compiled without the runtime
// skips it.
#ifndef GPU_CHECK_H
#define GPU_CHECK_H

#include <cstdio>
#include <cstdlib>

#if defined(__DRIVER_TYPES_H__) && defined(__CUDA_RUNTIME_H__)
#define checkGpu(call) gpu_check_result((call), #call, __FILE__, __LINE__)

static void gpu_check_result(cudaError_t result, const char *what, const char *file, int line)
{
    if (result != cudaSuccess) {
        fprintf(stderr, "GPU error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
                cudaGetErrorName(result), what);
        exit(EXIT_FAILURE);
    }
}

// the device to run on, and the block size it allows: asks each attribute on its own,
// as vendor samples do since cudaGetDeviceProperties became slow
inline int pick_device(int *block)
{
    int count = 0;
    checkGpu(cudaGetDeviceCount(&count));
    int major = 0, minor = 0, sms = 0, mode = cudaComputeModeDefault, threads = 0;
    checkGpu(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
    if (mode == cudaComputeModeProhibited) {
        fprintf(stderr, "device 0 is prohibited\n");
        exit(EXIT_FAILURE);
    }
    checkGpu(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    checkGpu(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    checkGpu(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    checkGpu(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, 0));
    checkGpu(cudaSetDevice(0));
    printf("GPU Device 0 of %d: compute capability %d.%d, %d multiprocessors\n", count, major,
           minor, sms);
    *block = min(threads / 4, 256);    // host min() without std::, as nvcc allows
    return 0;
}
#endif

#endif
