/* s2s: what nvcc accepts but clang's CUDA mode rejects, made acceptable for parsing.
 *
 * Included by the shim's cuda_runtime.h, and meant to be force-included after clang's CUDA
 * wrapper when parsing against a real toolkit too, so both paths see the same program:
 *  - __managed__ variables: clang supports the attribute for HIP only; with the toolkit's
 *    definition a CUDA parse warns and rejects every device use.  A managed variable is a
 *    device variable the host may touch, so it becomes __device__ (the spelling stays in the
 *    tokens for anyone who needs to know).
 *  - min()/max() on the host: nvcc declares them __host__ __device__; clang's headers (and the
 *    toolkit's, as clang includes them) only give device versions, so `min(a, b)` in host code
 *    fails.  Host versions of nvcc's overload set are added here.
 *  - <stdio.h> and <time.h>: nvcc's crt/common_functions.h includes them, so time(0) and
 *    printf compile in a .cu file that includes neither (Rodinia's particlefilter).
 */
#ifndef __S2S_NVCC_COMPAT_H__
#define __S2S_NVCC_COMPAT_H__

#if defined(__CUDA__)
#include <stdio.h>
#include <time.h>
#endif

#if defined(__CUDA__) && defined(__cplusplus)

#undef __managed__
#define __managed__ __attribute__((device))

#define __S2S_HOST_MINMAX(R, A, B)                                                             \
  static __inline__ __attribute__((host)) R min(const A a, const B b) {                      \
    return (R)a < (R)b ? (R)a : (R)b;                                                          \
  }                                                                                            \
  static __inline__ __attribute__((host)) R max(const A a, const B b) {                      \
    return (R)a < (R)b ? (R)b : (R)a;                                                          \
  }
__S2S_HOST_MINMAX(int, int, int)
__S2S_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
__S2S_HOST_MINMAX(unsigned int, int, unsigned int)
__S2S_HOST_MINMAX(unsigned int, unsigned int, int)
__S2S_HOST_MINMAX(long, long, long)
__S2S_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
__S2S_HOST_MINMAX(unsigned long, long, unsigned long)
__S2S_HOST_MINMAX(unsigned long, unsigned long, long)
__S2S_HOST_MINMAX(long long, long long, long long)
__S2S_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__S2S_HOST_MINMAX(unsigned long long, long long, unsigned long long)
__S2S_HOST_MINMAX(unsigned long long, unsigned long long, long long)
__S2S_HOST_MINMAX(float, float, float)
__S2S_HOST_MINMAX(double, double, double)
__S2S_HOST_MINMAX(double, float, double)
__S2S_HOST_MINMAX(double, double, float)
#undef __S2S_HOST_MINMAX

#endif /* __CUDA__ && __cplusplus */

#endif /* __S2S_NVCC_COMPAT_H__ */
