/*
 * s2s_host_api.h -- the few CUDA host-side types a kernel file may mention
 * outside its (blanked) host functions: declarations in headers such as
 * `void launcher(cudaStream_t s);` must still compile.  No functions: host
 * code does not run under the emulator.
 */
#ifndef S2S_HOST_API_H
#define S2S_HOST_API_H
typedef int cudaError_t;
enum { cudaSuccess = 0 };
typedef struct s2s_stream *cudaStream_t;
typedef struct s2s_event *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
#endif
