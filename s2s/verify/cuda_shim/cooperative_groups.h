/*
 * cooperative_groups.h -- verify's host-side stand-in (issue 29): the host translation unit
 * keeps the declarations of kernels and __device__ functions (their bodies are blanked), so
 * their parameter types (`cg::thread_block cta`) and a file-scope `namespace cg =
 * cooperative_groups;` must name something.  The kernels themselves run with the runtime's
 * cpu version (runtime/cpu/include/cuda_stub/cooperative_groups.h); nothing here runs.
 */
#ifndef S2S_CUDA_SHIM_COOPERATIVE_GROUPS_H
#define S2S_CUDA_SHIM_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups {

class thread_group {
 public:
  void sync() const {}
  unsigned long long size() const { return 1; }
  unsigned long long num_threads() const { return 1; }
  unsigned long long thread_rank() const { return 0; }
};

class thread_block : public thread_group {
 public:
  static void sync() {}
  static unsigned int size() { return 1; }
  static unsigned int num_threads() { return 1; }
  static unsigned int thread_rank() { return 0; }
  static dim3 group_index() { return dim3(0, 0, 0); }
  static dim3 thread_index() { return dim3(0, 0, 0); }
  static dim3 group_dim() { return dim3(1, 1, 1); }
  static dim3 dim_threads() { return dim3(1, 1, 1); }
};

inline thread_block this_thread_block() { return thread_block(); }
template <class Group> inline void sync(Group const &) {}
template <class Group> inline unsigned long long thread_rank(Group const &g) { return g.thread_rank(); }
template <class Group> inline unsigned long long group_size(Group const &g) { return g.size(); }

}  // namespace cooperative_groups

#endif
