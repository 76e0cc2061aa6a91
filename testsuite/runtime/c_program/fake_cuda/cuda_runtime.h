/*
 * cuda_runtime.h -- the few CUDA runtime types and functions that
 * runtime/include/s2s_mgpu.h uses, with CUDA's values, so that header can be
 * compiled and run by g++ on a machine without the CUDA toolkit
 * (testsuite/runtime/c_program/mgpu_errors.cpp).  Not a CUDA replacement.
 */
#ifndef S2S_TEST_FAKE_CUDA_RUNTIME_H
#define S2S_TEST_FAKE_CUDA_RUNTIME_H

enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorInvalidDevice = 101,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

/* the fields runtime/include/s2s_device_prop.h fills, with CUDA's names and types */
struct cudaDeviceProp {
    char name[256];
    unsigned long totalGlobalMem, sharedMemPerBlock, memPitch, totalConstMem, textureAlignment;
    unsigned long sharedMemPerMultiprocessor;
    int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], major, minor;
    int multiProcessorCount, maxThreadsPerMultiProcessor, regsPerMultiprocessor, l2CacheSize;
    int memoryBusWidth, concurrentKernels, unifiedAddressing;
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

inline const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    default: return "cudaErrorUnknown";
    }
}

inline const char *cudaGetErrorString(cudaError_t error) { return cudaGetErrorName(error); }

/* cudaDeviceAttr with the toolkit's numbers (s2s_mgpu.h answers cudaDeviceGetAttribute) */
#include "s2s_device_attr.h"

#endif
