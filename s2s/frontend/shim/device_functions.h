/* s2s CUDA shim: device-side functions.
 *
 * The math library, conversions, bit tricks, __threadfence*, __syncthreads_* and the
 * atomic helpers come from clang's own CUDA headers (shipped with libclang in its resource
 * directory, the same files clang's CUDA wrapper uses with a real toolkit).  What the toolkit
 * itself would add on top (the public atomic*() API, warp shuffles/votes, __ldg and friends,
 * texture fetches, device printf/malloc) is declared here: a parse needs no bodies.
 * __syncthreads() is a clang builtin.
 */
#ifndef __S2S_SHIM_DEVICE_FUNCTIONS_H__
#define __S2S_SHIM_DEVICE_FUNCTIONS_H__

#include "cuda.h"
#include "host_defines.h"
#include "vector_types.h"
#include "driver_types.h"

#if defined(__CUDA__)

#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>

/* ---- device runtime: printf, malloc, free, assert (as clang's CUDA wrapper declares them) */
extern "C" {
__device__ int vprintf(const char *, const char *);
__device__ void free(void *) __attribute__((nothrow));
__device__ void *malloc(size_t) __attribute__((nothrow)) __attribute__((malloc));
__device__ void __assertfail(const char *__message, const char *__file, unsigned __line,
                             const char *__function, size_t __charSize);
__device__ static inline void __assert_fail(const char *__message, const char *__file,
                                            unsigned __line, const char *__function) {
  __assertfail(__message, __file, __line, __function, sizeof(char));
}
__device__ int printf(const char *, ...);
} /* extern "C" */

namespace std {
__device__ static inline void free(void *__ptr) { ::free(__ptr); }
__device__ static inline void *malloc(size_t __size) { return ::malloc(__size); }
} /* namespace std */

/* ---- atomics (device_atomic_functions.h, sm_20/32/60 atomic functions) */
#define __S2S_ATOMIC(name, T)                                                                  \
  __device__ T name(T *address, T val);                                                        \
  __device__ T name##_block(T *address, T val);                                                \
  __device__ T name##_system(T *address, T val);
#define __S2S_ATOMIC_CAS(T)                                                                    \
  __device__ T atomicCAS(T *address, T compare, T val);                                        \
  __device__ T atomicCAS_block(T *address, T compare, T val);                                  \
  __device__ T atomicCAS_system(T *address, T compare, T val);

__S2S_ATOMIC(atomicAdd, int)
__S2S_ATOMIC(atomicAdd, unsigned int)
__S2S_ATOMIC(atomicAdd, unsigned long long int)
__S2S_ATOMIC(atomicAdd, float)
__S2S_ATOMIC(atomicAdd, double)
__S2S_ATOMIC(atomicSub, int)
__S2S_ATOMIC(atomicSub, unsigned int)
__S2S_ATOMIC(atomicExch, int)
__S2S_ATOMIC(atomicExch, unsigned int)
__S2S_ATOMIC(atomicExch, unsigned long long int)
__S2S_ATOMIC(atomicExch, float)
__S2S_ATOMIC(atomicMin, int)
__S2S_ATOMIC(atomicMin, unsigned int)
__S2S_ATOMIC(atomicMin, long long int)
__S2S_ATOMIC(atomicMin, unsigned long long int)
__S2S_ATOMIC(atomicMax, int)
__S2S_ATOMIC(atomicMax, unsigned int)
__S2S_ATOMIC(atomicMax, long long int)
__S2S_ATOMIC(atomicMax, unsigned long long int)
__S2S_ATOMIC(atomicInc, unsigned int)
__S2S_ATOMIC(atomicDec, unsigned int)
__S2S_ATOMIC(atomicAnd, int)
__S2S_ATOMIC(atomicAnd, unsigned int)
__S2S_ATOMIC(atomicAnd, unsigned long long int)
__S2S_ATOMIC(atomicOr, int)
__S2S_ATOMIC(atomicOr, unsigned int)
__S2S_ATOMIC(atomicOr, unsigned long long int)
__S2S_ATOMIC(atomicXor, int)
__S2S_ATOMIC(atomicXor, unsigned int)
__S2S_ATOMIC(atomicXor, unsigned long long int)
__S2S_ATOMIC_CAS(int)
__S2S_ATOMIC_CAS(unsigned int)
__S2S_ATOMIC_CAS(unsigned long long int)
__S2S_ATOMIC_CAS(unsigned short int)
#undef __S2S_ATOMIC
#undef __S2S_ATOMIC_CAS

/* ---- min()/max() beyond clang's (int, int): the toolkit's overload set (math_functions.hpp) */
#define __S2S_MINMAX(R, A, B)                                                                  \
  __device__ R min(const A a, const B b);                                                      \
  __device__ R max(const A a, const B b);
__S2S_MINMAX(unsigned int, unsigned int, unsigned int)
__S2S_MINMAX(unsigned int, int, unsigned int)
__S2S_MINMAX(unsigned int, unsigned int, int)
__S2S_MINMAX(long, long, long)
__S2S_MINMAX(unsigned long, unsigned long, unsigned long)
__S2S_MINMAX(unsigned long, long, unsigned long)
__S2S_MINMAX(unsigned long, unsigned long, long)
__S2S_MINMAX(long long, long long, long long)
__S2S_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__S2S_MINMAX(unsigned long long, long long, unsigned long long)
__S2S_MINMAX(unsigned long long, unsigned long long, long long)
__S2S_MINMAX(float, float, float)
__S2S_MINMAX(double, double, double)
__S2S_MINMAX(double, float, double)
__S2S_MINMAX(double, double, float)
#undef __S2S_MINMAX

/* ---- warp-level primitives (sm_30 intrinsics, CUDA 9 *_sync forms) */
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ unsigned int __activemask(void);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __uni_sync(unsigned int mask, int predicate);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);

#define __S2S_SHUFFLES(T)                                                                      \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = warpSize);       \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = warpSize);   \
  __device__ T __shfl(T var, int srcLane, int width = warpSize);                               \
  __device__ T __shfl_up(T var, unsigned int delta, int width = warpSize);                     \
  __device__ T __shfl_down(T var, unsigned int delta, int width = warpSize);                   \
  __device__ T __shfl_xor(T var, int laneMask, int width = warpSize);                          \
  __device__ unsigned int __match_any_sync(unsigned int mask, T value);                        \
  __device__ unsigned int __match_all_sync(unsigned int mask, T value, int *pred);

__S2S_SHUFFLES(int)
__S2S_SHUFFLES(unsigned int)
__S2S_SHUFFLES(long)
__S2S_SHUFFLES(unsigned long)
__S2S_SHUFFLES(long long)
__S2S_SHUFFLES(unsigned long long)
__S2S_SHUFFLES(float)
__S2S_SHUFFLES(double)
#undef __S2S_SHUFFLES

__device__ int __reduce_add_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_min_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_max_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_and_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_or_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value);

/* ---- cache-hinted loads and stores (sm_32 intrinsics) */
#define __S2S_LOADS(T)                                                                         \
  __device__ T __ldg(const T *ptr);                                                            \
  __device__ T __ldcg(const T *ptr);                                                           \
  __device__ T __ldca(const T *ptr);                                                           \
  __device__ T __ldcs(const T *ptr);                                                           \
  __device__ T __ldlu(const T *ptr);                                                           \
  __device__ T __ldcv(const T *ptr);                                                           \
  __device__ void __stwb(T *ptr, T value);                                                     \
  __device__ void __stcg(T *ptr, T value);                                                     \
  __device__ void __stcs(T *ptr, T value);                                                     \
  __device__ void __stwt(T *ptr, T value);

__S2S_LOADS(char)
__S2S_LOADS(signed char)
__S2S_LOADS(short)
__S2S_LOADS(int)
__S2S_LOADS(long)
__S2S_LOADS(long long)
__S2S_LOADS(unsigned char)
__S2S_LOADS(unsigned short)
__S2S_LOADS(unsigned int)
__S2S_LOADS(unsigned long)
__S2S_LOADS(unsigned long long)
__S2S_LOADS(float)
__S2S_LOADS(double)
__S2S_LOADS(char2)
__S2S_LOADS(char4)
__S2S_LOADS(short2)
__S2S_LOADS(short4)
__S2S_LOADS(int2)
__S2S_LOADS(int4)
__S2S_LOADS(longlong2)
__S2S_LOADS(uchar2)
__S2S_LOADS(uchar4)
__S2S_LOADS(ushort2)
__S2S_LOADS(ushort4)
__S2S_LOADS(uint2)
__S2S_LOADS(uint4)
__S2S_LOADS(ulonglong2)
__S2S_LOADS(float2)
__S2S_LOADS(float4)
__S2S_LOADS(double2)
#undef __S2S_LOADS

/* ---- miscellaneous intrinsics */
__device__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ int __dp4a(int srcA, int srcB, int c);
__device__ unsigned int __dp4a(unsigned int srcA, unsigned int srcB, unsigned int c);
__device__ int __dp2a_lo(int srcA, int srcB, int c);
__device__ int __dp2a_hi(int srcA, int srcB, int c);
__device__ void __nanosleep(unsigned int ns);
__device__ void __trap(void);
__device__ unsigned int __isGlobal(const void *ptr);
__device__ unsigned int __isShared(const void *ptr);
__device__ unsigned int __isConstant(const void *ptr);
__device__ unsigned int __isLocal(const void *ptr);
__device__ size_t __cvta_generic_to_global(const void *ptr);
__device__ size_t __cvta_generic_to_shared(const void *ptr);
__device__ void *__cvta_shared_to_generic(size_t rawbits);

/* ---- texture and surface objects */
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t texObject, int x);
template <class T> __device__ T tex1D(cudaTextureObject_t texObject, float x);
template <class T> __device__ T tex2D(cudaTextureObject_t texObject, float x, float y);
template <class T> __device__ T tex3D(cudaTextureObject_t texObject, float x, float y, float z);
template <class T> __device__ T surf2Dread(cudaSurfaceObject_t surfObject, int x, int y);
template <class T> __device__ void surf2Dwrite(T data, cudaSurfaceObject_t surfObject, int x, int y);

#endif /* __CUDA__ */

#endif /* __S2S_SHIM_DEVICE_FUNCTIONS_H__ */
