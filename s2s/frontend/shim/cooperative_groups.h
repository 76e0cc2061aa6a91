/* s2s CUDA shim: cooperative groups, the commonly used subset (thread blocks, tiles, grids,
 * coalesced groups).  Declarations only; group sizes of static tiles stay constant expressions.
 */
#ifndef __S2S_SHIM_COOPERATIVE_GROUPS_H__
#define __S2S_SHIM_COOPERATIVE_GROUPS_H__

#include "cuda_runtime.h"

#if defined(__cplusplus) && defined(__CUDA__)

namespace cooperative_groups {

class thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
};

class thread_block : public thread_group {
 public:
  __device__ static void sync();
  __device__ static unsigned int size();
  __device__ static unsigned int num_threads();
  __device__ static unsigned int thread_rank();
  __device__ static dim3 group_index();
  __device__ static dim3 thread_index();
  __device__ static dim3 group_dim();
  __device__ static dim3 dim_threads();
};

class grid_group {
 public:
  __device__ static void sync();
  __device__ static unsigned long long size();
  __device__ static unsigned long long num_threads();
  __device__ static unsigned long long thread_rank();
  __device__ static unsigned long long num_blocks();
  __device__ static unsigned long long block_rank();
  __device__ static bool is_valid();
  __device__ static dim3 group_dim();
  __device__ static dim3 dim_blocks();
  __device__ static dim3 block_index();
};

/* Members shared by warp-sized groups (static tiles and coalesced groups). */
#define __S2S_CG_WARP_MEMBERS                                                                  \
  __device__ void sync() const;                                                                \
  __device__ unsigned int thread_rank() const;                                                 \
  __device__ unsigned int meta_group_rank() const;                                             \
  __device__ unsigned int meta_group_size() const;                                             \
  template <typename T> __device__ T shfl(T var, int srcRank) const;                           \
  template <typename T> __device__ T shfl_up(T var, unsigned int delta) const;                 \
  template <typename T> __device__ T shfl_down(T var, unsigned int delta) const;               \
  template <typename T> __device__ T shfl_xor(T var, unsigned int laneMask) const;             \
  __device__ int any(int predicate) const;                                                     \
  __device__ int all(int predicate) const;                                                     \
  __device__ unsigned int ballot(int predicate) const;                                         \
  template <typename T> __device__ unsigned int match_any(T val) const;                        \
  template <typename T> __device__ unsigned int match_all(T val, int &pred) const;

template <unsigned int Size, typename ParentT = void>
class thread_block_tile {
 public:
  template <typename P>
  __device__ thread_block_tile(const thread_block_tile<Size, P> &) {}
  __device__ static constexpr unsigned int size() { return Size; }
  __device__ static constexpr unsigned int num_threads() { return Size; }
  __S2S_CG_WARP_MEMBERS
};

class coalesced_group {
 public:
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __S2S_CG_WARP_MEMBERS
};
#undef __S2S_CG_WARP_MEMBERS

__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, typename ParentT>
__device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
template <class TyGroup> __device__ void sync(TyGroup const &group);
template <class TyGroup> __device__ unsigned long long thread_rank(TyGroup const &group);
template <class TyGroup> __device__ unsigned long long group_size(TyGroup const &group);

} /* namespace cooperative_groups */

#endif /* __cplusplus && __CUDA__ */

#endif /* __S2S_SHIM_COOPERATIVE_GROUPS_H__ */
