/* s2s CUDA shim: execution-space and storage qualifiers.
 *
 * Part of the bundled stand-in for the CUDA toolkit headers that s2s uses when no toolkit is
 * installed.  It only has to make CUDA programs *parse* under libclang (clang -x cuda
 * -nocudainc), so the qualifiers map to clang's native CUDA attributes, as the toolkit's
 * host_defines.h does when clang compiles it.
 *
 * __noinline__ and __restrict__ are left alone on purpose: clang treats both as keywords in
 * CUDA mode, and defining __noinline__ as a macro would break libstdc++'s
 * __attribute__((__noinline__)).
 */
#ifndef __S2S_SHIM_HOST_DEFINES_H__
#define __S2S_SHIM_HOST_DEFINES_H__

#if defined(__CUDA__)
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* See nvcc_compat.h for why a managed variable is a device variable here. */
#define __managed__ __attribute__((device))
#define __grid_constant__ __attribute__((grid_constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else /* the shim included from plain C/C++: the qualifiers mean nothing there */
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __grid_constant__
#define __launch_bounds__(...)
#define __noinline__ __attribute__((noinline))
#endif

#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __align__(n)
#define __thread__ __thread
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __align__(n)
#define CUDARTAPI
#define CUDAAPI
#define __dv(v) = v

#endif /* __S2S_SHIM_HOST_DEFINES_H__ */
