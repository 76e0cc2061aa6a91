/* s2s CUDA shim: make_<vector type>() constructors for the types of vector_types.h. */
#ifndef __S2S_SHIM_VECTOR_FUNCTIONS_H__
#define __S2S_SHIM_VECTOR_FUNCTIONS_H__

#include "vector_types.h"

#define __S2S_MAKE(name, T)                                                                    \
  static __inline__ __host__ __device__ name##1 make_##name##1(T x) { name##1 r; r.x = x; return r; } \
  static __inline__ __host__ __device__ name##2 make_##name##2(T x, T y) {                     \
    name##2 r; r.x = x; r.y = y; return r;                                                       \
  }                                                                                              \
  static __inline__ __host__ __device__ name##3 make_##name##3(T x, T y, T z) {                \
    name##3 r; r.x = x; r.y = y; r.z = z; return r;                                              \
  }                                                                                              \
  static __inline__ __host__ __device__ name##4 make_##name##4(T x, T y, T z, T w) {           \
    name##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r;                                     \
  }

__S2S_MAKE(char, signed char)
__S2S_MAKE(uchar, unsigned char)
__S2S_MAKE(short, short)
__S2S_MAKE(ushort, unsigned short)
__S2S_MAKE(int, int)
__S2S_MAKE(uint, unsigned int)
__S2S_MAKE(long, long)
__S2S_MAKE(ulong, unsigned long)
__S2S_MAKE(longlong, long long)
__S2S_MAKE(ulonglong, unsigned long long)
__S2S_MAKE(float, float)
__S2S_MAKE(double, double)

#undef __S2S_MAKE

#endif /* __S2S_SHIM_VECTOR_FUNCTIONS_H__ */
