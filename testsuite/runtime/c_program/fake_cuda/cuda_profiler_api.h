/*
 * cuda_profiler_api.h -- the stand-in of the toolkit header that
 * runtime/include/s2s_mgpu.h includes before its prologue renames
 * cudaProfilerStart/Stop (see fake_cuda/cuda_runtime.h).  Not a CUDA replacement.
 */
#ifndef S2S_TEST_FAKE_CUDA_PROFILER_API_H
#define S2S_TEST_FAKE_CUDA_PROFILER_API_H

#include "cuda_runtime.h"

cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

#endif
