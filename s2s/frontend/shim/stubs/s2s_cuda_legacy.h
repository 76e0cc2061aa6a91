/* s2s: CUDA runtime calls that CUDA 13 removed but older programs still call
 * (cudaThreadSynchronize, cudaThreadExit), declared for parsing when the toolkit's headers
 * lack them. Force-included after the CUDA runtime header when parsing against a real
 * toolkit; the s2s runtime (s2s_mgpu.h) and the verify shim implement them. */
#ifndef S2S_CUDA_LEGACY_H
#define S2S_CUDA_LEGACY_H
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
extern __host__ cudaError_t cudaThreadSynchronize(void);
extern __host__ cudaError_t cudaThreadExit(void);
#endif
#endif
