/* s2s CUDA shim: half precision (__half, __half2) -- the commonly used subset of cuda_fp16.h.
 *
 * Declarations only.  __half keeps a defaulted (trivial) default constructor so __shared__
 * arrays of it are accepted, as with the toolkit.
 */
#ifndef __S2S_SHIM_CUDA_FP16_H__
#define __S2S_SHIM_CUDA_FP16_H__

#include "host_defines.h"
#include "vector_types.h"

#if defined(__cplusplus)

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };

struct __align__(2) __half {
  __half() = default;
  __host__ __device__ __half(const __half_raw &hr);
  __host__ __device__ __half(float f);
  __host__ __device__ __half(double f);
  __host__ __device__ __half(int v);
  __host__ __device__ __half(unsigned int v);
  __host__ __device__ __half(short v);
  __host__ __device__ __half(unsigned short v);
  __host__ __device__ __half(long long v);
  __host__ __device__ __half(unsigned long long v);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __half_raw() const;
  __host__ __device__ __half &operator=(float f);
  __host__ __device__ __half &operator=(double f);
  __host__ __device__ __half &operator+=(const __half &rh);
  __host__ __device__ __half &operator-=(const __half &rh);
  __host__ __device__ __half &operator*=(const __half &rh);
  __host__ __device__ __half &operator/=(const __half &rh);

 protected:
  unsigned short __x;
};

struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ constexpr __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __host__ __device__ __half2(const __half2_raw &h2r);
  __host__ __device__ operator __half2_raw() const;
  __host__ __device__ __half2 &operator+=(const __half2 &rh);
  __host__ __device__ __half2 &operator-=(const __half2 &rh);
  __host__ __device__ __half2 &operator*=(const __half2 &rh);
  __host__ __device__ __half2 &operator/=(const __half2 &rh);
};

typedef __half half;
typedef __half2 half2;

#define __S2S_HALF_OPS(H, B)                                                                   \
  __host__ __device__ H operator+(const H &a, const H &b);                                     \
  __host__ __device__ H operator-(const H &a, const H &b);                                     \
  __host__ __device__ H operator*(const H &a, const H &b);                                     \
  __host__ __device__ H operator/(const H &a, const H &b);                                     \
  __host__ __device__ H operator-(const H &a);                                                 \
  __host__ __device__ H operator+(const H &a);                                                 \
  __host__ __device__ B operator==(const H &a, const H &b);                                    \
  __host__ __device__ B operator!=(const H &a, const H &b);                                    \
  __host__ __device__ B operator<(const H &a, const H &b);                                     \
  __host__ __device__ B operator>(const H &a, const H &b);                                     \
  __host__ __device__ B operator<=(const H &a, const H &b);                                    \
  __host__ __device__ B operator>=(const H &a, const H &b);
__S2S_HALF_OPS(__half, bool)
__S2S_HALF_OPS(__half2, bool)
#undef __S2S_HALF_OPS

__host__ __device__ __half __float2half(const float a);
__host__ __device__ __half __float2half_rn(const float a);
__host__ __device__ __half __float2half_rz(const float a);
__host__ __device__ __half __double2half(const double a);
__host__ __device__ float __half2float(const __half a);
__host__ __device__ __half2 __float2half2_rn(const float a);
__host__ __device__ __half2 __floats2half2_rn(const float a, const float b);
__host__ __device__ __half2 __halves2half2(const __half a, const __half b);
__host__ __device__ __half2 __half2half2(const __half a);
__host__ __device__ float2 __half22float2(const __half2 a);
__host__ __device__ __half2 __float22half2_rn(const float2 a);
__host__ __device__ float __low2float(const __half2 a);
__host__ __device__ float __high2float(const __half2 a);
__host__ __device__ __half __low2half(const __half2 a);
__host__ __device__ __half __high2half(const __half2 a);
__host__ __device__ __half __int2half_rn(const int i);
__host__ __device__ int __half2int_rn(const __half h);
__host__ __device__ int __half2int_rz(const __half h);
__host__ __device__ unsigned short __half_as_ushort(const __half h);
__host__ __device__ __half __ushort_as_half(const unsigned short i);

__device__ __half __hadd(const __half a, const __half b);
__device__ __half __hsub(const __half a, const __half b);
__device__ __half __hmul(const __half a, const __half b);
__device__ __half __hdiv(const __half a, const __half b);
__device__ __half __hfma(const __half a, const __half b, const __half c);
__device__ __half __hneg(const __half a);
__device__ __half __habs(const __half a);
__device__ __half __hmax(const __half a, const __half b);
__device__ __half __hmin(const __half a, const __half b);
__device__ bool __heq(const __half a, const __half b);
__device__ bool __hne(const __half a, const __half b);
__device__ bool __hlt(const __half a, const __half b);
__device__ bool __hle(const __half a, const __half b);
__device__ bool __hgt(const __half a, const __half b);
__device__ bool __hge(const __half a, const __half b);
__device__ bool __hisnan(const __half a);
__device__ __half2 __hadd2(const __half2 a, const __half2 b);
__device__ __half2 __hsub2(const __half2 a, const __half2 b);
__device__ __half2 __hmul2(const __half2 a, const __half2 b);
__device__ __half2 __h2div(const __half2 a, const __half2 b);
__device__ __half2 __hfma2(const __half2 a, const __half2 b, const __half2 c);
__device__ __half2 __hneg2(const __half2 a);
__device__ __half2 __habs2(const __half2 a);
__device__ __half2 __hmax2(const __half2 a, const __half2 b);
__device__ __half2 __hmin2(const __half2 a, const __half2 b);
__device__ __half hsqrt(const __half a);
__device__ __half hrsqrt(const __half a);
__device__ __half hexp(const __half a);
__device__ __half hlog(const __half a);
__device__ __half hsin(const __half a);
__device__ __half hcos(const __half a);
__device__ __half2 h2sqrt(const __half2 a);
__device__ __half2 h2exp(const __half2 a);

__device__ __half atomicAdd(__half *address, __half val);
__device__ __half2 atomicAdd(__half2 *address, __half2 val);
__device__ __half __ldg(const __half *ptr);
__device__ __half2 __ldg(const __half2 *ptr);

#define __S2S_HALF_SHUFFLES(T)                                                                 \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = warpSize);       \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = warpSize);
__S2S_HALF_SHUFFLES(__half)
__S2S_HALF_SHUFFLES(__half2)
#undef __S2S_HALF_SHUFFLES

#endif /* __cplusplus */

#endif /* __S2S_SHIM_CUDA_FP16_H__ */
