/* cooperative_groups.h for the s2s cpu backend: the thread-block subset (issue 29).
 *
 * A thread_block is the launching block: its sync() is __syncthreads (the kernel runs its
 * threads as fibers, runtime/cpu/source.py sees the name `sync`), its ranks and extents read
 * the built-in variables of the running fiber.  thread_group is the same block seen through
 * its base class.  Tiles, grids, coalesced groups and the collective algorithms are refused
 * by name before compiling (runtime/cpu/source.py: UNSUPPORTED_NAMES, "cooperative_groups/").
 */
#ifndef S2S_CPU_COOPERATIVE_GROUPS_H
#define S2S_CPU_COOPERATIVE_GROUPS_H

#include "s2s_simt.h"

namespace cooperative_groups {

class thread_group {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long size() const
  {
    return (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
  }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const
  {
    return ((unsigned long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
};

class thread_block : public thread_group {
 public:
  static void sync() { __syncthreads(); }
  static unsigned int size() { return blockDim.x * blockDim.y * blockDim.z; }
  static unsigned int num_threads() { return size(); }
  static unsigned int thread_rank()
  {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static dim3 dim_threads() { return group_dim(); }
};

static inline thread_block this_thread_block() { return thread_block(); }

template <class Group>
static inline void sync(Group const &group) { group.sync(); }
template <class Group>
static inline unsigned long long thread_rank(Group const &group) { return group.thread_rank(); }
template <class Group>
static inline unsigned long long group_size(Group const &group) { return group.size(); }

}  // namespace cooperative_groups

#endif
