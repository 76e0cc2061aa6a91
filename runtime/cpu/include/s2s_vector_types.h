/*
 * s2s_vector_types.h -- CUDA's built-in vector types for the cpu backend.
 *
 * Plain aggregates with the alignment CUDA gives them (float4 is 16-byte
 * aligned, float3 is not), so that a buffer written by the host with the
 * CUDA layout is read correctly by an emulated kernel.  No constructors:
 * they stay trivially constructible, which keeps `static thread_local`
 * __shared__ arrays of them free of TLS init wrappers.
 */
#ifndef S2S_VECTOR_TYPES_H
#define S2S_VECTOR_TYPES_H

#define S2S_VEC1(T, N, A)                                                     \
    struct alignas(A) N##1 { T x; };                                          \
    static inline N##1 make_##N##1(T x) { N##1 v; v.x = x; return v; }
#define S2S_VEC2(T, N, A)                                                     \
    struct alignas(A) N##2 { T x, y; };                                       \
    static inline N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; }
#define S2S_VEC3(T, N, A)                                                     \
    struct alignas(A) N##3 { T x, y, z; };                                    \
    static inline N##3 make_##N##3(T x, T y, T z)                             \
    { N##3 v; v.x = x; v.y = y; v.z = z; return v; }
#define S2S_VEC4(T, N, A)                                                     \
    struct alignas(A) N##4 { T x, y, z, w; };                                 \
    static inline N##4 make_##N##4(T x, T y, T z, T w)                        \
    { N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

#define S2S_VEC_ALL(T, N, A1, A2, A3, A4)                                     \
    S2S_VEC1(T, N, A1) S2S_VEC2(T, N, A2) S2S_VEC3(T, N, A3) S2S_VEC4(T, N, A4)

S2S_VEC_ALL(signed char, char, 1, 2, 1, 4)
S2S_VEC_ALL(unsigned char, uchar, 1, 2, 1, 4)
S2S_VEC_ALL(short, short, 2, 4, 2, 8)
S2S_VEC_ALL(unsigned short, ushort, 2, 4, 2, 8)
S2S_VEC_ALL(int, int, 4, 8, 4, 16)
S2S_VEC_ALL(unsigned int, uint, 4, 8, 4, 16)
S2S_VEC_ALL(long, long, 8, 16, 8, 16)
S2S_VEC_ALL(unsigned long, ulong, 8, 16, 8, 16)
S2S_VEC_ALL(long long, longlong, 8, 16, 8, 16)
S2S_VEC_ALL(unsigned long long, ulonglong, 8, 16, 8, 16)
S2S_VEC_ALL(float, float, 4, 8, 4, 16)
S2S_VEC_ALL(double, double, 8, 16, 8, 16)

/* dim3 is the one vector type with a constructor (as in CUDA) */
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

#endif
