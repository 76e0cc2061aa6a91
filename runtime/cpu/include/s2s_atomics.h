/*
 * s2s_atomics.h -- CUDA atomic functions for the cpu backend.
 *
 * Blocks run in parallel on several OS threads, so atomics on global memory
 * must be real atomics: GCC's __atomic builtins, relaxed like CUDA's.
 * Integer add/sub/and/or/xor/exch map to single instructions; float and
 * double add/min/max and atomicInc/Dec use a compare-and-swap loop on the
 * value.  The value parameter is non-deduced (as in CUDA's overloads,
 * `atomicAdd(&unsigned_counter, 1)` must compile).
 */
#ifndef S2S_ATOMICS_H
#define S2S_ATOMICS_H

#include <type_traits>

namespace s2s {
template <class T> struct same { typedef T type; };

/* old = *p; *p = f(old); return old -- for any 4- or 8-byte type */
template <class T, class F>
static inline T atomic_update(T *p, F f)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics work on 4- and 8-byte values");
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    T desired = f(old);
    while (!__atomic_compare_exchange(p, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        desired = f(old);
    return old;
}
}  // namespace s2s

template <class T>
static inline T atomicAdd(T *p, typename s2s::same<T>::type v)
{
    if constexpr (std::is_integral<T>::value)
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else
        return s2s::atomic_update(p, [v](T old) { return old + v; });
}
template <class T>
static inline T atomicSub(T *p, typename s2s::same<T>::type v)
{
    if constexpr (std::is_integral<T>::value)
        return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
    else
        return s2s::atomic_update(p, [v](T old) { return old - v; });
}
template <class T>
static inline T atomicMin(T *p, typename s2s::same<T>::type v)
{
    return s2s::atomic_update(p, [v](T old) { return v < old ? v : old; });
}
template <class T>
static inline T atomicMax(T *p, typename s2s::same<T>::type v)
{
    return s2s::atomic_update(p, [v](T old) { return v > old ? v : old; });
}
template <class T>
static inline T atomicExch(T *p, typename s2s::same<T>::type v)
{
    T old;
    __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
    return old;
}
template <class T>
static inline T atomicCAS(T *p, typename s2s::same<T>::type compare, typename s2s::same<T>::type v)
{
    T expected = compare;
    __atomic_compare_exchange(p, &expected, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return expected;
}
template <class T>
static inline T atomicAnd(T *p, typename s2s::same<T>::type v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T>
static inline T atomicOr(T *p, typename s2s::same<T>::type v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T>
static inline T atomicXor(T *p, typename s2s::same<T>::type v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }
static inline unsigned int atomicInc(unsigned int *p, unsigned int limit)
{
    return s2s::atomic_update(p, [limit](unsigned int old) { return old >= limit ? 0u : old + 1u; });
}
static inline unsigned int atomicDec(unsigned int *p, unsigned int limit)
{
    return s2s::atomic_update(p, [limit](unsigned int old) { return (old == 0u || old > limit) ? limit : old - 1u; });
}

/* scoped variants: the emulation has one coherent memory */
#define S2S_SCOPED(name) \
    template <class... A> static inline auto name##_block(A... a) { return name(a...); } \
    template <class... A> static inline auto name##_system(A... a) { return name(a...); }
S2S_SCOPED(atomicAdd)
S2S_SCOPED(atomicSub)
S2S_SCOPED(atomicMin)
S2S_SCOPED(atomicMax)
S2S_SCOPED(atomicExch)
S2S_SCOPED(atomicCAS)
S2S_SCOPED(atomicAnd)
S2S_SCOPED(atomicOr)
S2S_SCOPED(atomicXor)
S2S_SCOPED(atomicInc)
S2S_SCOPED(atomicDec)

static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

#endif
