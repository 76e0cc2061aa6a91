/*
 * s2s_device_attr.h -- cudaDeviceAttr and cudaComputeMode with the toolkit's names and numbers,
 * for verify's host shim, which stands in for the toolkit's headers when it builds the original
 * program. The attributes are those s2s_device_prop.h answers. Not for a build with the real
 * toolkit (its driver_types.h has them all).
 */
#ifndef S2S_DEVICE_ATTR_H
#define S2S_DEVICE_ATTR_H
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10, cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16, cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31, cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39, cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41, cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82
};
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1,
                       cudaComputeModeProhibited = 2, cudaComputeModeExclusiveProcess = 3 };
#endif
