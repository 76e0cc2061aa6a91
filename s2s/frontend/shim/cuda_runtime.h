/* s2s CUDA shim: cuda_runtime.h, force-included into every CUDA parse without a toolkit.
 *
 * s2s parses .cu files with `clang -x cuda -nocudainc -include cuda_runtime.h -isystem <this
 * dir>` when no CUDA toolkit is installed (or S2S_CUDA_PATH=shim).  This header then plays the
 * part of clang's __clang_cuda_runtime_wrapper.h plus the toolkit headers it wraps: it sets up
 * the standard headers the same way (so libstdc++ sees __CUDACC__ and clang's <new>/<cmath>
 * wrappers find what they need), defines the CUDA qualifiers as clang attributes, the builtin
 * variables (threadIdx, ... from clang's __clang_cuda_builtin_vars.h), vector types, the runtime
 * API with its C++ templates, and the device function library.  The goal is a parse with zero
 * diagnostics on both the host and the device side for programs nvcc accepts; nothing here is
 * ever compiled to code.
 */
#ifndef __S2S_SHIM_CUDA_RUNTIME_H__
#define __S2S_SHIM_CUDA_RUNTIME_H__
/* the toolkit's include guard: programs test it (helper_cuda.h's gpuDeviceInit) */
#define __CUDA_RUNTIME_H__

#if defined(__CUDA__) && defined(__clang__)
/* Like clang's wrapper: forward declarations that must precede <cmath>, and the standard
 * headers included while __CUDACC__ is set (libstdc++ then avoids __float128). */
#include <__clang_cuda_math_forward_declares.h>
#endif

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 9
#define __CUDACC_VER_BUILD__ 0

#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "host_defines.h"
#if defined(__CUDA__)
#include <__clang_cuda_builtin_vars.h>
#endif
#define __DEVICE_LAUNCH_PARAMETERS_H__
#include "vector_types.h"
#include "vector_functions.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "device_functions.h"
#include "removed_texture_refs.h"
#include "nvcc_compat.h"

#if defined(__CUDA__)
/* Out-of-line conversions declared by __clang_cuda_builtin_vars.h; they need dim3 and uint3. */
__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return {x, y, z}; }

#include <__clang_cuda_cmath.h>
#include <__clang_cuda_complex_builtins.h>

/* What clang's Sema calls for `kernel<<<grid, block, shmem, stream>>>(args)` (CUDA >= 9.2);
 * same declaration as clang's wrapper so launch cursors look the same as with a toolkit. */
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                void *stream = 0);
#endif /* __CUDA__ */

#if defined(__cplusplus)
/* ---- the runtime API's C++ conveniences (cuda_runtime.h proper) */
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) {
  return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
static __inline__ __host__ cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc(ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
  return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                         unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
  return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr,
                                                                size_t length = 0,
                                                                unsigned int flags = cudaMemAttachSingle) {
  return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
static __inline__ __host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                                          size_t offset = 0,
                                                          enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                                               size_t offset = 0,
                                                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                               cudaStream_t stream = 0) {
  return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                            size_t offset = 0,
                                                            enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                                                 size_t offset = 0,
                                                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                                 cudaStream_t stream = 0) {
  return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
  return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
  return ::cudaGetSymbolSize(size, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                        size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                                   void **args, size_t sharedMem = 0,
                                                                   cudaStream_t stream = 0) {
  return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <typename... ExpTypes, typename... ActTypes>
static __inline__ __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                                          void (*kernel)(ExpTypes...), ActTypes &&...args) {
  void *pArgs[sizeof...(ActTypes) + 1] = {((void *)&args)...};
  return ::cudaLaunchKernelExC(config, (const void *)kernel, pArgs);
}
template <typename... ActTypes>
static __inline__ __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, const void *kernel,
                                                          ActTypes &&...args) {
  void *pArgs[sizeof...(ActTypes) + 1] = {((void *)&args)...};
  return ::cudaLaunchKernelExC(config, kernel, pArgs);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig) {
  return ::cudaFuncSetCacheConfig((const void *)func, cacheConfig);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig config) {
  return ::cudaFuncSetSharedMemConfig((const void *)func, config);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
  return ::cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute((const void *)entry, attr, value);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                                    int blockSize,
                                                                                    size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func, blockSize,
                                                         dynamicSMemSize);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, (const void *)func, blockSize,
                                                                  dynamicSMemSize, flags);
}
/* Declared only (the toolkit's bodies are a page of occupancy arithmetic); not static, so an
 * undefined use is not flagged. */
template <class T>
__host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                        size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
template <class T>
__host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, T func,
                                                                 size_t dynamicSMemSize = 0,
                                                                 int blockSizeLimit = 0, unsigned int flags = 0);
template <class UnaryFunction, class T>
__host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize, T func,
                                                                    UnaryFunction blockSizeToDynamicSMemSize,
                                                                    int blockSizeLimit = 0);
template <class UnaryFunction, class T>
__host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0, unsigned int flags = 0);
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func,
                                                                                 int numBlocks, int blockSize) {
  return ::cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, (const void *)func, numBlocks, blockSize);
}
template <class T> __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(void);
#endif /* __cplusplus */

#endif /* __S2S_SHIM_CUDA_RUNTIME_H__ */
