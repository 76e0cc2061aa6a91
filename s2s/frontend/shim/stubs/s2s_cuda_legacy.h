/* s2s: CUDA runtime calls that CUDA 13 removed but older programs still call
 * (cudaThreadSynchronize, cudaThreadExit, ...: s2s/model/cuda_legacy.py lists them), declared for
 * parsing when the toolkit's headers lack them. Force-included after the CUDA runtime header
 * when parsing against a real toolkit; the s2s runtime (s2s_mgpu.h) and the verify shim
 * implement them. A name the user maps with their own -D is left to their macro. */
#ifndef S2S_CUDA_LEGACY_H
#define S2S_CUDA_LEGACY_H
/* nvcc's crt/common_functions.h includes these: time(0) and printf compile without them */
#include <stdio.h>
#include <time.h>
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
#ifndef cudaThreadSynchronize
extern __host__ cudaError_t cudaThreadSynchronize(void);
#endif
#ifndef cudaThreadExit
extern __host__ cudaError_t cudaThreadExit(void);
#endif
#ifndef cudaThreadSetLimit
extern __host__ cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value);
#endif
#ifndef cudaThreadGetLimit
extern __host__ cudaError_t cudaThreadGetLimit(size_t *value, enum cudaLimit limit);
#endif
#ifndef cudaThreadSetCacheConfig
extern __host__ cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache config);
#endif
#ifndef cudaThreadGetCacheConfig
extern __host__ cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *config);
#endif
#endif
#endif
