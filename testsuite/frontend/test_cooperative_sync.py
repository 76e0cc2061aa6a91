"""Cooperative groups' ``sync`` is the barrier of its group, read from the declaration the
call resolves to (issue 29: cuda-samples write ``cg::sync(cta)`` where older code has
``__syncthreads()``; it was a call of unknown category, so fuse saw such kernels as
barrier-free)."""

from __future__ import annotations

from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load

GROUPS = """\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ void flip(int *s, cg::thread_block cta) { cg::sync(cta); s[0] = 1; }
__global__ void k(int *p)
{
    __shared__ int s[64];
    cg::thread_block cta = cg::this_thread_block();
    cg::sync(cta);
    cta.sync();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(cta);
    w.sync();
    cg::sync(w);
    cg::grid_group g = cg::this_grid();
    g.sync();
    flip(s, cta);
    p[threadIdx.x] = s[threadIdx.x];
}
"""


def test_group_syncs_are_block_warp_or_no_barrier(tmp_path):
    path = tmp_path / "groups.cu"
    path.write_text(GROUPS)
    model = load(str(path), ParseOptions()).model
    syncs = [c.category for c in model.kernel("k").calls if c.name == "sync"]
    assert syncs == ["syncthreads", "syncthreads", "warp", "warp", "other"]
    (flip,) = [f for f in model.device_functions if f.name == "flip"]
    assert [(c.name, c.category) for c in flip.calls] == [("sync", "syncthreads")]
