/*
 * s2s_device_prop.h -- what cudaGetDeviceProperties reports for the s2s runtime's device.
 *
 * A program rewritten by `s2s mgpu` sees one virtual device, spread over the runtime's
 * devices (cpu or GPUs); the verify shim runs the original program on one cpu device. Both
 * report these documented values, so a program that prints or uses them (block sizes from
 * maxThreadsPerBlock, the name in a banner) behaves the same before and after the rewrite:
 * compute capability 7.0, warps of 32, CUDA's per-block limits, 80 multiprocessors and
 * 16 GiB of global memory. Works with any struct that has cudaDeviceProp's field names.
 */
#ifndef S2S_DEVICE_PROP_H
#define S2S_DEVICE_PROP_H

#include <cstring>

#define S2S_DEVICE_NAME "s2s virtual device"

#define S2S_FILL_DEVICE_PROP(p) do {                                              \
        std::strncpy((p)->name, S2S_DEVICE_NAME, sizeof((p)->name) - 1);          \
        (p)->totalGlobalMem = (size_t)16 << 30;                                   \
        (p)->sharedMemPerBlock = 48 * 1024;                                       \
        (p)->regsPerBlock = 65536;                                                \
        (p)->warpSize = 32;                                                       \
        (p)->memPitch = 2147483647;                                               \
        (p)->maxThreadsPerBlock = 1024;                                           \
        (p)->maxThreadsDim[0] = 1024;                                             \
        (p)->maxThreadsDim[1] = 1024;                                             \
        (p)->maxThreadsDim[2] = 64;                                               \
        (p)->maxGridSize[0] = 2147483647;                                         \
        (p)->maxGridSize[1] = 65535;                                              \
        (p)->maxGridSize[2] = 65535;                                              \
        (p)->totalConstMem = 65536;                                               \
        (p)->major = 7;                                                           \
        (p)->minor = 0;                                                           \
        (p)->textureAlignment = 512;                                              \
        (p)->multiProcessorCount = 80;                                            \
        (p)->maxThreadsPerMultiProcessor = 2048;                                  \
        (p)->sharedMemPerMultiprocessor = 96 * 1024;                              \
        (p)->regsPerMultiprocessor = 65536;                                       \
        (p)->l2CacheSize = 6 * 1024 * 1024;                                       \
        (p)->memoryBusWidth = 4096;                                               \
        (p)->concurrentKernels = 1;                                               \
        (p)->unifiedAddressing = 1;                                               \
    } while (0)

#endif
