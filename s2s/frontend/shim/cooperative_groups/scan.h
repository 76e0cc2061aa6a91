/* s2s CUDA shim: cooperative_groups::inclusive_scan / exclusive_scan (declarations only). */
#ifndef __S2S_SHIM_CG_SCAN_H__
#define __S2S_SHIM_CG_SCAN_H__

#include "reduce.h"

#if defined(__cplusplus) && defined(__CUDA__)
namespace cooperative_groups {

template <class TyGroup, class TyVal, class TyFn = plus<TyVal>>
__device__ TyVal inclusive_scan(const TyGroup &group, TyVal val, TyFn op = TyFn());
template <class TyGroup, class TyVal, class TyFn = plus<TyVal>>
__device__ TyVal exclusive_scan(const TyGroup &group, TyVal val, TyFn op = TyFn());

} /* namespace cooperative_groups */
#endif

#endif /* __S2S_SHIM_CG_SCAN_H__ */
