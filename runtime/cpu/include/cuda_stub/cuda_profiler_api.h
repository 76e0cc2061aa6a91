/* cuda_profiler_api.h for the s2s cpu backend: declarations only, as s2s_host_api.h's (a
 * kernel file that includes it, cuda-samples' matrixMul, must compile; host code does not
 * run under the emulator). */
#ifndef S2S_CUDA_PROFILER_API_H
#define S2S_CUDA_PROFILER_API_H
#include "s2s_host_api.h"
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
#endif
