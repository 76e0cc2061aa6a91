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

/* The fields a GPU reports on the runtime's cuda backend, in the order of runtime/capi.py's
   DEVICE_PROPERTIES (s2s_device_properties fills v[] in this order). */
#define S2S_DEVICE_PROP_COUNT 24
#define S2S_SET_DEVICE_PROP(p, v) do {                                            \
        (p)->totalGlobalMem = (size_t)(v)[0];                                     \
        (p)->sharedMemPerBlock = (size_t)(v)[1];                                  \
        (p)->regsPerBlock = (int)(v)[2];                                          \
        (p)->warpSize = (int)(v)[3];                                              \
        (p)->memPitch = (size_t)(v)[4];                                           \
        (p)->maxThreadsPerBlock = (int)(v)[5];                                    \
        (p)->maxThreadsDim[0] = (int)(v)[6];                                      \
        (p)->maxThreadsDim[1] = (int)(v)[7];                                      \
        (p)->maxThreadsDim[2] = (int)(v)[8];                                      \
        (p)->maxGridSize[0] = (int)(v)[9];                                        \
        (p)->maxGridSize[1] = (int)(v)[10];                                       \
        (p)->maxGridSize[2] = (int)(v)[11];                                       \
        (p)->totalConstMem = (size_t)(v)[12];                                     \
        (p)->major = (int)(v)[13];                                                \
        (p)->minor = (int)(v)[14];                                                \
        (p)->textureAlignment = (size_t)(v)[15];                                  \
        (p)->multiProcessorCount = (int)(v)[16];                                  \
        (p)->maxThreadsPerMultiProcessor = (int)(v)[17];                          \
        (p)->sharedMemPerMultiprocessor = (size_t)(v)[18];                        \
        (p)->regsPerMultiprocessor = (int)(v)[19];                                \
        (p)->l2CacheSize = (int)(v)[20];                                          \
        (p)->memoryBusWidth = (int)(v)[21];                                       \
        (p)->concurrentKernels = (int)(v)[22];                                    \
        (p)->unifiedAddressing = (int)(v)[23];                                    \
    } while (0)

/* cudaDeviceGetAttribute of the device whose properties `p` holds (filled as above):
   `attribute` is a cudaDeviceAttr value (the toolkit's numbers); an attribute s2s has no value
   for gives false (the caller returns cudaErrorInvalidValue). Fields CUDA 13's cudaDeviceProp
   lost (clock rate, compute mode, integrated ...) are 0, as the verify shim's property struct
   reports them: cuda-samples' helper_cuda.h (findCudaDevice) asks for several of these. */
#ifdef __cplusplus
template <class Prop>
inline bool s2s_device_attribute(const Prop &p, int attribute, int *value)
{
    switch (attribute) {
    case 1: *value = p.maxThreadsPerBlock; return true;
    case 2: case 3: case 4: *value = p.maxThreadsDim[attribute - 2]; return true;
    case 5: case 6: case 7: *value = p.maxGridSize[attribute - 5]; return true;
    case 8: *value = (int)p.sharedMemPerBlock; return true;
    case 9: *value = (int)p.totalConstMem; return true;
    case 10: *value = p.warpSize; return true;
    case 11: *value = (int)p.memPitch; return true;
    case 12: *value = p.regsPerBlock; return true;
    case 14: *value = (int)p.textureAlignment; return true;
    case 16: *value = p.multiProcessorCount; return true;
    case 31: *value = p.concurrentKernels; return true;
    case 37: *value = p.memoryBusWidth; return true;
    case 38: *value = p.l2CacheSize; return true;
    case 39: *value = p.maxThreadsPerMultiProcessor; return true;
    case 41: *value = p.unifiedAddressing; return true;
    case 75: *value = p.major; return true;
    case 76: *value = p.minor; return true;
    case 81: *value = (int)p.sharedMemPerMultiprocessor; return true;
    case 82: *value = p.regsPerMultiprocessor; return true;
    /* clock rate, overlap, timeout, integrated, map host memory, compute mode (default),
       memory clock, async engines: not in CUDA 13's struct, 0 as the verify shim has them */
    case 13: case 15: case 17: case 18: case 19: case 20: case 36: case 40:
        *value = 0;
        return true;
    default: return false;
    }
}
#endif

#endif
