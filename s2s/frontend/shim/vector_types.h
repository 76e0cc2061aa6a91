/* s2s CUDA shim: built-in vector types (char1 .. double4), uint3 and dim3.
 *
 * Layout and alignment follow the CUDA programming guide so sizeof/alignof-based code (and
 * static_asserts on it) behaves as with the toolkit.
 */
#ifndef __S2S_SHIM_VECTOR_TYPES_H__
#define __S2S_SHIM_VECTOR_TYPES_H__

#include "host_defines.h"

#define __S2S_VEC1(name, T, al) struct __align__(al) name { T x; };
#define __S2S_VEC2(name, T, al) struct __align__(al) name { T x, y; };
#define __S2S_VEC3(name, T) struct name { T x, y, z; };
#define __S2S_VEC4(name, T, al) struct __align__(al) name { T x, y, z, w; };

__S2S_VEC1(char1, signed char, 1)
__S2S_VEC2(char2, signed char, 2)
__S2S_VEC3(char3, signed char)
__S2S_VEC4(char4, signed char, 4)
__S2S_VEC1(uchar1, unsigned char, 1)
__S2S_VEC2(uchar2, unsigned char, 2)
__S2S_VEC3(uchar3, unsigned char)
__S2S_VEC4(uchar4, unsigned char, 4)
__S2S_VEC1(short1, short, 2)
__S2S_VEC2(short2, short, 4)
__S2S_VEC3(short3, short)
__S2S_VEC4(short4, short, 8)
__S2S_VEC1(ushort1, unsigned short, 2)
__S2S_VEC2(ushort2, unsigned short, 4)
__S2S_VEC3(ushort3, unsigned short)
__S2S_VEC4(ushort4, unsigned short, 8)
__S2S_VEC1(int1, int, 4)
__S2S_VEC2(int2, int, 8)
__S2S_VEC3(int3, int)
__S2S_VEC4(int4, int, 16)
__S2S_VEC1(uint1, unsigned int, 4)
__S2S_VEC2(uint2, unsigned int, 8)
__S2S_VEC3(uint3, unsigned int)
__S2S_VEC4(uint4, unsigned int, 16)
__S2S_VEC1(long1, long, sizeof(long))
__S2S_VEC2(long2, long, 2 * sizeof(long))
__S2S_VEC3(long3, long)
__S2S_VEC4(long4, long, 16)
__S2S_VEC1(ulong1, unsigned long, sizeof(unsigned long))
__S2S_VEC2(ulong2, unsigned long, 2 * sizeof(unsigned long))
__S2S_VEC3(ulong3, unsigned long)
__S2S_VEC4(ulong4, unsigned long, 16)
__S2S_VEC1(longlong1, long long, 8)
__S2S_VEC2(longlong2, long long, 16)
__S2S_VEC3(longlong3, long long)
__S2S_VEC4(longlong4, long long, 16)
__S2S_VEC1(ulonglong1, unsigned long long, 8)
__S2S_VEC2(ulonglong2, unsigned long long, 16)
__S2S_VEC3(ulonglong3, unsigned long long)
__S2S_VEC4(ulonglong4, unsigned long long, 16)
__S2S_VEC1(float1, float, 4)
__S2S_VEC2(float2, float, 8)
__S2S_VEC3(float3, float)
__S2S_VEC4(float4, float, 16)
__S2S_VEC1(double1, double, 8)
__S2S_VEC2(double2, double, 16)
__S2S_VEC3(double3, double)
__S2S_VEC4(double4, double, 16)

#undef __S2S_VEC1
#undef __S2S_VEC2
#undef __S2S_VEC3
#undef __S2S_VEC4

/* CUDA 13 spellings of the 4-wide 64-bit types with explicit alignment. */
typedef long4 long4_16a;
typedef ulong4 ulong4_16a;
typedef longlong4 longlong4_16a;
typedef ulonglong4 ulonglong4_16a;
typedef double4 double4_16a;
struct __align__(32) long4_32a { long x, y, z, w; };
struct __align__(32) ulong4_32a { unsigned long x, y, z, w; };
struct __align__(32) longlong4_32a { long long x, y, z, w; };
struct __align__(32) ulonglong4_32a { unsigned long long x, y, z, w; };
struct __align__(32) double4_32a { double x, y, z, w; };

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

#endif /* __S2S_SHIM_VECTOR_TYPES_H__ */
