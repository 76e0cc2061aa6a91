/* s2s CUDA shim: cooperative_groups::reduce and its operators (declarations only). */
#ifndef __S2S_SHIM_CG_REDUCE_H__
#define __S2S_SHIM_CG_REDUCE_H__

#include "../cooperative_groups.h"

#if defined(__cplusplus) && defined(__CUDA__)
namespace cooperative_groups {

template <class T> struct plus { __device__ T operator()(const T &a, const T &b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(const T &a, const T &b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(const T &a, const T &b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(const T &a, const T &b) const { return a ^ b; } };

template <class TyGroup, class TyVal, class TyFn>
__device__ TyVal reduce(const TyGroup &group, TyVal val, TyFn op);

} /* namespace cooperative_groups */
#endif

#endif /* __S2S_SHIM_CG_REDUCE_H__ */
