/*
 * s2s_host_api.h -- the few CUDA host-side types a kernel file may mention
 * outside its (blanked) host functions: declarations in headers such as
 * `void launcher(cudaStream_t s);` must still compile.  No functions: host
 * code does not run under the emulator.
 */
#ifndef S2S_HOST_API_H
#define S2S_HOST_API_H
#include <stddef.h>
typedef int cudaError_t;
enum { cudaSuccess = 0 };
typedef struct s2s_stream *cudaStream_t;
typedef struct s2s_event *cudaEvent_t;
/* the flag constants, one home for s2s's stand-ins of the toolkit's headers */
#include "../../include/s2s_cuda_flags.h"
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
/* Declarations only, for the host wrappers of the program's headers (a static
 * `copy_to_device(...)` around cudaMemcpy in a header that relies on nvcc's implicit
 * cuda_runtime.h): they compile with the kernels, are never called there, and an unused
 * static function leaves no reference behind. */
cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int flags);
cudaError_t cudaHostRegister(void *ptr, size_t bytes, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaDeviceSynchronize(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
#ifdef __cplusplus
template <class T> static inline cudaError_t cudaMalloc(T **ptr, size_t bytes)
{
    return cudaMalloc((void **)ptr, bytes);
}
/* the default stream, as CUDA's declarations default it */
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    return cudaMemcpyAsync(dst, src, bytes, kind, (cudaStream_t)0);
}
static inline cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes)
{
    return cudaMemsetAsync(ptr, value, bytes, (cudaStream_t)0);
}
#endif
#endif
