/*
 * s2s_math.h -- CUDA device math functions and integer/float intrinsics
 * for the cpu backend.
 *
 * The standard C/C++ functions (expf, sqrtf, fmaxf, sincosf, exp10f, ...)
 * come from <math.h>/<cmath>; this file adds the CUDA-only ones.  The fast
 * intrinsics (__expf, __fdividef, ...) map to the accurate functions: they
 * are at least as accurate as on a GPU, so results stay inside the
 * tolerance a test of the GPU version would use.  Rounding-mode suffixes
 * (_rn, _rz, ...) are all computed in the host's round-to-nearest mode
 * except for the float->int conversions, which honour them.
 */
#ifndef S2S_MATH_H
#define S2S_MATH_H

#include <math.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

/* ---- min/max: CUDA overloads them for every arithmetic pair ---- */
template <class A, class B,
          typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int>::type = 0>
static inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    if (std::is_floating_point<C>::value)
        return (C)std::fmin((C)a, (C)b);
    return (C)a < (C)b ? (C)a : (C)b;
}
template <class A, class B,
          typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int>::type = 0>
static inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    if (std::is_floating_point<C>::value)
        return (C)std::fmax((C)a, (C)b);
    return (C)a > (C)b ? (C)a : (C)b;
}
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* ---- CUDA-only float/double functions ---- */
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
static inline float norm4df(float a, float b, float c, float d) { return sqrtf(a * a + b * b + c * c + d * d); }
static inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
static inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
static inline float fdividef(float a, float b) { return a / b; }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float saturate(float x) { return __saturatef(x); }

/* fast intrinsics: computed accurately (glibc declares some of these
   names itself, so they are macros rather than functions) */
#define __expf expf
#define __exp10f exp10f
#define __logf logf
#define __log2f log2f
#define __log10f log10f
#define __sinf sinf
#define __cosf cosf
#define __tanf tanf
#define __sincosf sincosf
#define __powf powf
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }

#define S2S_ROUNDED_F(op, expr)                                               \
    static inline float __f##op##_rn(float a, float b) { return expr; }       \
    static inline float __f##op##_rz(float a, float b) { return expr; }       \
    static inline float __f##op##_ru(float a, float b) { return expr; }       \
    static inline float __f##op##_rd(float a, float b) { return expr; }       \
    static inline double __d##op##_rn(double a, double b) { return expr; }    \
    static inline double __d##op##_rz(double a, double b) { return expr; }    \
    static inline double __d##op##_ru(double a, double b) { return expr; }    \
    static inline double __d##op##_rd(double a, double b) { return expr; }
S2S_ROUNDED_F(add, a + b)
S2S_ROUNDED_F(sub, a - b)
S2S_ROUNDED_F(mul, a * b)
S2S_ROUNDED_F(div, a / b)
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fmaf_rz(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline double __dsqrt_rn(double x) { return sqrt(x); }
static inline double __drcp_rn(double x) { return 1.0 / x; }

/* ---- conversions ---- */
#define S2S_CONV(name, From, To, expr)                                        \
    static inline To name(From x) { return (To)(expr); }
S2S_CONV(__float2int_rn, float, int, nearbyintf(x))
S2S_CONV(__float2int_rz, float, int, truncf(x))
S2S_CONV(__float2int_ru, float, int, ceilf(x))
S2S_CONV(__float2int_rd, float, int, floorf(x))
S2S_CONV(__float2uint_rn, float, unsigned int, nearbyintf(x))
S2S_CONV(__float2uint_rz, float, unsigned int, truncf(x))
S2S_CONV(__float2ll_rn, float, long long, nearbyintf(x))
S2S_CONV(__float2ll_rz, float, long long, truncf(x))
S2S_CONV(__double2int_rn, double, int, nearbyint(x))
S2S_CONV(__double2int_rz, double, int, trunc(x))
S2S_CONV(__double2ll_rn, double, long long, nearbyint(x))
S2S_CONV(__double2float_rn, double, float, x)
S2S_CONV(__int2float_rn, int, float, x)
S2S_CONV(__uint2float_rn, unsigned int, float, x)
S2S_CONV(__ll2float_rn, long long, float, x)
S2S_CONV(__int2double_rn, int, double, x)

template <class To, class From>
static inline To s2s_bit_cast(From v)
{
    static_assert(sizeof(To) == sizeof(From), "bit cast between different sizes");
    To out;
    memcpy(&out, &v, sizeof(To));
    return out;
}
static inline float __int_as_float(int x) { return s2s_bit_cast<float>(x); }
static inline int __float_as_int(float x) { return s2s_bit_cast<int>(x); }
static inline float __uint_as_float(unsigned int x) { return s2s_bit_cast<float>(x); }
static inline unsigned int __float_as_uint(float x) { return s2s_bit_cast<unsigned int>(x); }
static inline double __longlong_as_double(long long x) { return s2s_bit_cast<double>(x); }
static inline long long __double_as_longlong(double x) { return s2s_bit_cast<long long>(x); }
static inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return (int)(unsigned int)__double_as_longlong(x); }
static inline double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double((long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo));
}

/* ---- integer intrinsics ---- */
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long both = ((unsigned long long)y << 32) | x;
    unsigned int out = 0;
    for (int k = 0; k < 4; ++k)
        out |= (unsigned int)((both >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k);
    return out;
}
static inline int __mul24(int a, int b) { return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
static inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b)
{
    return (unsigned int)(((unsigned long long)a * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned int __uhadd(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a + b) >> 1); }
static inline unsigned int __urhadd(unsigned int a, unsigned int b)
{
    return (unsigned int)(((unsigned long long)a + b + 1) >> 1);
}
static inline unsigned int __sad(int a, int b, unsigned int c) { return c + (unsigned int)(a > b ? a - b : b - a); }
static inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }
static inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s)
{
    unsigned long long both = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((both << (s & 31)) >> 32);
}
static inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s)
{
    unsigned long long both = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(both >> (s & 31));
}

/* ---- cache-hinted loads and stores: plain memory operations here ---- */
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline T __ldca(const T *p) { return *p; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline T __ldlu(const T *p) { return *p; }
template <class T> static inline T __ldcv(const T *p) { return *p; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline void __stwb(T *p, T v) { *p = v; }
template <class T> static inline void __stwt(T *p, T v) { *p = v; }

#endif
