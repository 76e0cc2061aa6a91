/* s2s CUDA shim: the CUDA runtime API (C entry points).
 *
 * Declarations only: s2s parses, it never links.  Parameter names, default arguments and
 * which functions are callable from device code (__host__ __device__ here, a separate device
 * runtime declaration in the toolkit) follow the toolkit.  Where CUDA 13 changed a signature
 * (cudaMemPrefetchAsync, cudaMemAdvise) the CUDA 12 form is the C entry point and the CUDA 13
 * form a C++ overload, so code written for either parses.
 */
#ifndef __S2S_SHIM_CUDA_RUNTIME_API_H__
#define __S2S_SHIM_CUDA_RUNTIME_API_H__
/* the toolkit's include guard: programs test it */
#define __CUDA_RUNTIME_API_H__

#include "host_defines.h"
#include "driver_types.h"
#include "vector_types.h"

#define CUDART_VERSION 12090
#define __CUDART_API_VERSION 12090

#define __S2S_API extern __host__ cudaError_t CUDARTAPI
/* Entry points that device code may call as well (dynamic parallelism runtime). */
#define __S2S_HD_API extern __host__ __device__ cudaError_t CUDARTAPI

struct cudaResourceViewDesc;

#if defined(__cplusplus)
extern "C" {
#endif

/* Device management */
__S2S_API cudaDeviceReset(void);
__S2S_API cudaDeviceSynchronize(void);
__S2S_API cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
__S2S_HD_API cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit);
__S2S_HD_API cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
__S2S_API cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
__S2S_API cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
__S2S_API cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
__S2S_API cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
__S2S_API cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
__S2S_API cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
__S2S_API cudaThreadSynchronize(void);
__S2S_API cudaThreadExit(void);
__S2S_HD_API cudaGetLastError(void);
__S2S_HD_API cudaPeekAtLastError(void);
extern __host__ __device__ const char *CUDARTAPI cudaGetErrorName(cudaError_t error);
extern __host__ __device__ const char *CUDARTAPI cudaGetErrorString(cudaError_t error);
__S2S_HD_API cudaGetDeviceCount(int *count);
__S2S_API cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
__S2S_HD_API cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
__S2S_API cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice,
                                    int dstDevice);
__S2S_API cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
__S2S_API cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
__S2S_API cudaSetDevice(int device);
__S2S_HD_API cudaGetDevice(int *device);
__S2S_API cudaSetValidDevices(int *device_arr, int len);
__S2S_API cudaSetDeviceFlags(unsigned int flags);
__S2S_API cudaGetDeviceFlags(unsigned int *flags);
__S2S_API cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
__S2S_API cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
__S2S_API cudaDeviceDisablePeerAccess(int peerDevice);
__S2S_API cudaDriverGetVersion(int *driverVersion);
__S2S_HD_API cudaRuntimeGetVersion(int *runtimeVersion);

/* Streams */
__S2S_API cudaStreamCreate(cudaStream_t *pStream);
__S2S_HD_API cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
__S2S_API cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
__S2S_API cudaStreamGetPriority(cudaStream_t hStream, int *priority);
__S2S_API cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
__S2S_HD_API cudaStreamDestroy(cudaStream_t stream);
__S2S_HD_API cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags __dv(0));
__S2S_API cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                unsigned int flags);
__S2S_API cudaStreamSynchronize(cudaStream_t stream);
__S2S_API cudaStreamQuery(cudaStream_t stream);
__S2S_API cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length __dv(0),
                                   unsigned int flags __dv(cudaMemAttachSingle));
__S2S_API cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
__S2S_API cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
__S2S_API cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
__S2S_API cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);

/* Events */
__S2S_API cudaEventCreate(cudaEvent_t *event);
__S2S_HD_API cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
__S2S_HD_API cudaEventRecord(cudaEvent_t event, cudaStream_t stream __dv(0));
__S2S_HD_API cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream __dv(0),
                                      unsigned int flags __dv(0));
__S2S_API cudaEventQuery(cudaEvent_t event);
__S2S_API cudaEventSynchronize(cudaEvent_t event);
__S2S_HD_API cudaEventDestroy(cudaEvent_t event);
__S2S_API cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* Execution control */
__S2S_API cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                           size_t sharedMem, cudaStream_t stream);
__S2S_API cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
__S2S_API cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream);
__S2S_API cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
__S2S_API cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
__S2S_HD_API cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
__S2S_API cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
/* Pre-CUDA-9.2 launch protocol; clang's <<<>>> may look this up. */
__S2S_API cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem __dv(0),
                            cudaStream_t stream __dv(0));
__S2S_API cudaSetupArgument(const void *arg, size_t size, size_t offset);
__S2S_API cudaLaunch(const void *func);

/* Occupancy */
__S2S_HD_API cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                           int blockSize, size_t dynamicSMemSize);
__S2S_HD_API cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
__S2S_API cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                    int numBlocks, int blockSize);

/* Memory management */
__S2S_HD_API cudaMalloc(void **devPtr, size_t size);
__S2S_API cudaMallocHost(void **ptr, size_t size);
__S2S_API cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
__S2S_API cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                          size_t height __dv(0), unsigned int flags __dv(0));
__S2S_API cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
__S2S_API cudaMallocManaged(void **devPtr, size_t size, unsigned int flags __dv(cudaMemAttachGlobal));
__S2S_API cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
__S2S_HD_API cudaFree(void *devPtr);
__S2S_API cudaFreeHost(void *ptr);
__S2S_API cudaFreeArray(cudaArray_t array);
__S2S_API cudaFreeAsync(void *devPtr, cudaStream_t hStream);
__S2S_API cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
__S2S_API cudaHostRegister(void *ptr, size_t size, unsigned int flags);
__S2S_API cudaHostUnregister(void *ptr);
__S2S_API cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
__S2S_API cudaHostGetFlags(unsigned int *pFlags, void *pHost);
__S2S_API cudaMemGetInfo(size_t *free, size_t *total);
__S2S_API cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
__S2S_API cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
__S2S_API cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
__S2S_API cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, enum cudaMemcpyKind kind);
__S2S_API cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
__S2S_API cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
__S2S_API cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                            size_t count, enum cudaMemcpyKind kind);
__S2S_API cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
__S2S_HD_API cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream __dv(0));
__S2S_API cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset __dv(0),
                             enum cudaMemcpyKind kind __dv(cudaMemcpyHostToDevice));
__S2S_API cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset __dv(0),
                               enum cudaMemcpyKind kind __dv(cudaMemcpyDeviceToHost));
__S2S_HD_API cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                             cudaStream_t stream __dv(0));
__S2S_API cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                              cudaStream_t stream __dv(0));
__S2S_HD_API cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                               size_t height, enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
__S2S_API cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                  enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
__S2S_API cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
__S2S_API cudaMemset(void *devPtr, int value, size_t count);
__S2S_API cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
__S2S_API cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
__S2S_HD_API cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream __dv(0));
__S2S_HD_API cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                               cudaStream_t stream __dv(0));
__S2S_HD_API cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                               cudaStream_t stream __dv(0));
__S2S_API cudaGetSymbolAddress(void **devPtr, const void *symbol);
__S2S_API cudaGetSymbolSize(size_t *size, const void *symbol);
__S2S_API cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                               cudaStream_t stream __dv(0));
__S2S_API cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device);

/* Textures */
extern __host__ struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                             enum cudaChannelFormatKind f);
__S2S_API cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                  const struct cudaTextureDesc *pTexDesc,
                                  const struct cudaResourceViewDesc *pResViewDesc);
__S2S_API cudaDestroyTextureObject(cudaTextureObject_t texObject);

/* Graphs */
__S2S_API cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
__S2S_API cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                               unsigned long long flags __dv(0));
__S2S_API cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
__S2S_API cudaGraphExecDestroy(cudaGraphExec_t graphExec);
__S2S_API cudaGraphDestroy(cudaGraph_t graph);

/* Profiler control (cuda_profiler_api.h) */
__S2S_API cudaProfilerStart(void);
__S2S_API cudaProfilerStop(void);

#if defined(__cplusplus)
} /* extern "C" */

/* CUDA 13 signatures (a memory location instead of a device number). */
__S2S_API cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                               unsigned int flags, cudaStream_t stream __dv(0));
__S2S_API cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                        struct cudaMemLocation location);
#endif

#undef __S2S_API
#undef __S2S_HD_API

#endif /* __S2S_SHIM_CUDA_RUNTIME_API_H__ */
