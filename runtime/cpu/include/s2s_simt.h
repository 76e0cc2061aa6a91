/*
 * s2s_simt.h -- compile CUDA kernel source with a host C++ compiler.
 *
 * The cpu backend of the s2s runtime includes this header in front of a
 * kernel file (see runtime/cpu/source.py for the two textual edits made
 * before: host code blanked, `extern __shared__` turned into a pointer).
 * It supplies the CUDA qualifiers, built-in variables, vector types, math,
 * atomics, barriers and warp intrinsics, and the launch entry points the
 * Python side calls through ctypes:
 *
 *   blocks of the launched box run in an OpenMP loop across cores;
 *   kernels with barriers or warp operations run each block's threads as
 *   fibers (s2s_fibers.h); kernels without run them as a plain loop.
 */
#ifndef S2S_SIMT_H
#define S2S_SIMT_H

#include <dlfcn.h>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>
#include <utility>

#include "s2s_vector_types.h"
#include "s2s_math.h"
#include "s2s_atomics.h"
#include "s2s_fibers.h"

/* ---- qualifiers ---- */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
#define __grid_constant__
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 800
#endif
#define S2S_CPU_EMULATION 1

/* ---- built-in variables ---- */
#define threadIdx (s2s::tls.thread_idx)
#define blockIdx (s2s::tls.block_idx)
#define blockDim (s2s::tls.block_dim)
#define gridDim (s2s::tls.grid_dim)
static constexpr int warpSize = 32;

/* ---- block barriers ---- */
static inline void __syncthreads()
{
    s2s::require_fibers();
    if (s2s::tls.in_fibers)
        s2s::arrive(s2s::tls.block_bar, (unsigned)s2s::tls.live);
}
static inline int __syncthreads_count(int p) { return (int)s2s::block_reduce(p != 0, 0); }
static inline int __syncthreads_and(int p) { return (int)s2s::block_reduce(p != 0, 1); }
static inline int __syncthreads_or(int p) { return s2s::block_reduce(p != 0, 2) != 0; }

/* ---- warp operations ---- */
static inline unsigned __lane() { return s2s::tls.in_fibers ? s2s::current().lane : 0u; }
static inline unsigned __activemask()
{
    return s2s::tls.in_fibers ? s2s::tls.warps[s2s::current().warp].live : 1u;
}
static inline void __syncwarp(unsigned mask = 0xFFFFFFFFu) { s2s::warp_exchange(mask, 0); }

namespace s2s {
template <class T>
static inline T shuffle(unsigned mask, T v, int src_lane)
{
    static_assert(sizeof(T) <= 8, "warp shuffle of a value wider than 8 bytes");
    uint64_t bits = 0;
    memcpy(&bits, &v, sizeof(T));
    if (!tls.in_fibers) {
        require_fibers();
        return v;
    }
    Warp &w = tls.warps[current().warp];
    unsigned parity = warp_exchange(mask, bits);
    if (src_lane < 0 || src_lane > 31 || !((w.part[parity] >> src_lane) & 1u))
        return v;
    T out;
    memcpy(&out, &w.slot[parity][src_lane], sizeof(T));
    return out;
}
static inline unsigned vote(unsigned mask, int pred)
{
    if (!tls.in_fibers) {
        require_fibers();
        return pred ? 1u : 0u;
    }
    Warp &w = tls.warps[current().warp];
    unsigned parity = warp_exchange(mask, pred != 0);
    unsigned ballot = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
        if (((w.part[parity] & mask) >> lane) & 1u && w.slot[parity][lane])
            ballot |= 1u << lane;
    return ballot;
}
}  // namespace s2s

template <class T>
static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    int lane = (int)__lane();
    return s2s::shuffle(mask, v, (lane & ~(width - 1)) + (src & (width - 1)));
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    int lane = (int)__lane();
    int in_seg = lane & (width - 1);
    return s2s::shuffle(mask, v, in_seg >= (int)delta ? lane - (int)delta : lane);
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    int lane = (int)__lane();
    int in_seg = lane & (width - 1);
    return s2s::shuffle(mask, v, in_seg + (int)delta < width ? lane + (int)delta : lane);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
    int lane = (int)__lane();
    int src = lane ^ lane_mask;
    if ((src & ~(width - 1)) != (lane & ~(width - 1)))
        src = lane;
    return s2s::shuffle(mask, v, src);
}
static inline unsigned __ballot_sync(unsigned mask, int pred) { return s2s::vote(mask, pred); }
static inline int __any_sync(unsigned mask, int pred) { return s2s::vote(mask, pred) != 0; }
static inline int __all_sync(unsigned mask, int pred)
{
    unsigned participants = mask & __activemask();
    return (s2s::vote(mask, pred) & participants) == participants;
}

/* ---- misc device functions ---- */
static inline long long clock64()
{
    unsigned lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (long long)(((unsigned long long)hi << 32) | lo);
}
static inline void __nanosleep(unsigned) {}
[[noreturn]] static inline void __trap() { throw s2s::Trap(); }
static inline void __brkpt() { __trap(); }

/* ---- launch entry points ---- */
namespace s2s {

struct LaunchDesc {
    uint32_t grid[3], block[3], lo[3], hi[3];
    uint64_t dyn_shared;
    int32_t threads;
};

/* what the Python side needs to marshal one parameter */
struct ParamDesc {
    uint32_t size, align;
    int32_t kind;          /* 0 pointer, 1 signed int, 2 unsigned int, 3 float, 4 other by value */
    int32_t const_target;  /* pointer to const */
};

template <class F> struct fn_traits;
template <class... P> struct fn_traits<void (*)(P...)> {
    typedef std::tuple<typename std::decay<P>::type...> args;
    static constexpr int arity = sizeof...(P);
};

template <class T>
static inline ParamDesc describe_one()
{
    ParamDesc d;
    d.size = sizeof(T);
    d.align = alignof(T);
    d.const_target = 0;
    if constexpr (std::is_pointer<T>::value) {
        d.kind = 0;
        d.const_target = std::is_const<typename std::remove_pointer<T>::type>::value;
    } else if constexpr (std::is_floating_point<T>::value) {
        d.kind = 3;
    } else if constexpr (std::is_integral<T>::value || std::is_enum<T>::value) {
        d.kind = std::is_signed<T>::value ? 1 : 2;
    } else {
        d.kind = 4;
    }
    return d;
}

template <class Tuple, size_t... I>
static inline int describe_all(ParamDesc *out, int cap, std::index_sequence<I...>)
{
    int n = (int)sizeof...(I);
    if (n <= cap) {
        ParamDesc all[sizeof...(I) + 1] = {describe_one<typename std::tuple_element<I, Tuple>::type>()...};
        for (int i = 0; i < n; ++i)
            out[i] = all[i];
    }
    return n;
}

template <auto K>
static int describe(ParamDesc *out, int cap)
{
    typedef typename fn_traits<decltype(K)>::args Args;
    return describe_all<Args>(out, cap, std::make_index_sequence<std::tuple_size<Args>::value>());
}

template <class Tuple, size_t... I>
static inline void unpack(Tuple &vals, void **args, std::index_sequence<I...>)
{
    (memcpy(&std::get<I>(vals), args[I], sizeof(typename std::tuple_element<I, Tuple>::type)), ...);
}

template <auto K>
static void invoke(const void *vals)
{
    typedef typename fn_traits<decltype(K)>::args Args;
    std::apply(K, *static_cast<const Args *>(vals));
}

static inline int prepare_dyn_shared(uint64_t bytes)
{
    if (bytes == 0)
        return OK;
    if (bytes > (uint64_t)256 * 1024)
        return SHARED_TOO_LARGE;
    if (tls.dyn_smem_size < bytes) {
        free(tls.dyn_smem);
        tls.dyn_smem = (char *)aligned_alloc(64, (bytes + 63) & ~(uint64_t)63);
        tls.dyn_smem_size = bytes;
    }
    return tls.dyn_smem ? OK : STACK_ALLOC;
}

template <auto K, bool Fibers>
static int launch(const LaunchDesc *d, void **args)
{
    typedef typename fn_traits<decltype(K)>::args Args;
    Args vals;
    unpack(vals, args, std::make_index_sequence<std::tuple_size<Args>::value>());
    long ex = (long)d->hi[0] - d->lo[0], ey = (long)d->hi[1] - d->lo[1], ez = (long)d->hi[2] - d->lo[2];
    long nblocks = ex * ey * ez;
    int error = OK;
    long chunk = nblocks / ((long)d->threads * 8);
    if (chunk < 1)
        chunk = 1;
#pragma omp parallel for schedule(dynamic, chunk) num_threads(d->threads) if (nblocks > 1)
    for (long b = 0; b < nblocks; ++b) {
        int seen;
#pragma omp atomic read
        seen = error;
        if (seen != OK)
            continue;
        tls.grid_dim = uint3{d->grid[0], d->grid[1], d->grid[2]};
        tls.block_dim = uint3{d->block[0], d->block[1], d->block[2]};
        tls.block_idx = uint3{d->lo[0] + (unsigned)(b % ex), d->lo[1] + (unsigned)((b / ex) % ey),
                              d->lo[2] + (unsigned)(b / (ex * ey))};
        tls.body = &invoke<K>;
        tls.body_arg = &vals;
        int rc = prepare_dyn_shared(d->dyn_shared);
        if (rc == OK)
            rc = Fibers ? run_block_fibers(tls.block_dim) : run_block_plain(tls.block_dim);
        if (rc != OK) {
#pragma omp atomic write
            error = rc;
        }
    }
    return error;
}

struct KernelEntry {
    const char *name;
    int (*launch)(const LaunchDesc *, void **);
    int (*describe)(ParamDesc *, int);
    int fibers;
    void *function;        /* the kernel itself: dladdr gives its mangled name for the cuda backend */
};

}  // namespace s2s

/* the generated table and its C accessors (one module per shared object) */
#define S2S_MODULE(...)                                                                         \
    static const s2s::KernelEntry s2s_kernel_table[] = {__VA_ARGS__};                           \
    extern "C" int s2s_kernel_count(void)                                                       \
    { return (int)(sizeof(s2s_kernel_table) / sizeof(s2s_kernel_table[0])); }                  \
    extern "C" const char *s2s_kernel_name(int i) { return s2s_kernel_table[i].name; }          \
    extern "C" int s2s_kernel_fibers(int i) { return s2s_kernel_table[i].fibers; }              \
    extern "C" int s2s_kernel_params(int i, s2s::ParamDesc *out, int cap)                       \
    { return s2s_kernel_table[i].describe(out, cap); }                                          \
    extern "C" int s2s_kernel_launch(int i, const s2s::LaunchDesc *d, void **args)              \
    { return s2s_kernel_table[i].launch(d, args); }                                             \
    extern "C" const char *s2s_kernel_symbol(int i)                                             \
    {                                                                                           \
        Dl_info info;                                                                           \
        if (dladdr(s2s_kernel_table[i].function, &info) && info.dli_sname)                      \
            return info.dli_sname;                                                              \
        return s2s_kernel_table[i].name;                                                        \
    }                                                                                           \
    extern "C" int s2s_module_abi(void) { return 1; }

#endif
