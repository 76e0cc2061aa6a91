"""Cooperative groups' thread blocks on the cpu backend (issue 29: cuda-samples' mergeSort and
many others write ``cg::thread_block cta = cg::this_thread_block(); cg::sync(cta);``).

The block's sync is a barrier (the kernel runs as fibers), its ranks and extents are the
running thread's; tiles, grids and the collectives are refused by name, with the line."""

from __future__ import annotations

import numpy as np
import pytest

from runtime.cpu import module as cpu_module
from runtime.cpu.source import prepare
from runtime.errors import UnsupportedConstruct

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

/* a device function given the block, as mergeSort's merge() is */
__device__ void reverse_in(int *s, cg::thread_block cta)
{
    int v = s[cta.size() - 1 - cta.thread_rank()];
    cg::sync(cta);
    s[cta.thread_rank()] = v;
    cta.sync();
}

__global__ void block_sums(const int *in, int *sums, int *reversed, unsigned *shape)
{
    __shared__ int s[64];
    cg::thread_block cta = cg::this_thread_block();
    unsigned t = cta.thread_rank();
    unsigned base = cta.group_index().x * cta.size();
    s[t] = in[base + t];
    cg::sync(cta);
    reverse_in(s, cta);
    reversed[base + t] = s[t];
    cg::sync(cta);
    for (unsigned stride = cta.size() / 2; stride > 0; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        cta.sync();
    }
    if (t == 0) {
        sums[cta.group_index().x] = s[0];
        shape[0] = cta.group_dim().x;
        shape[1] = (unsigned)cg::group_size(cta);
        shape[2] = cta.thread_index().x + cta.num_threads();
    }
}
"""


@pytest.fixture(scope="module")
def mod():
    return cpu_module.load(SOURCE, "groups.cu")


def test_thread_block_sync_is_a_barrier(mod):
    assert mod["block_sums"].fibers
    data = np.arange(3 * 64, dtype=np.int32)
    sums, reversed_, shape = np.zeros(3, np.int32), np.zeros_like(data), np.zeros(3, np.uint32)
    mod["block_sums"].launch(3, 64, [data.ctypes.data, sums.ctypes.data, reversed_.ctypes.data,
                                     shape.ctypes.data])
    assert list(sums) == [int(data[b * 64:(b + 1) * 64].sum()) for b in range(3)]
    assert list(reversed_) == [int(x) for b in range(3) for x in data[b * 64:(b + 1) * 64][::-1]]
    assert list(shape) == [64, 64, 64]


@pytest.mark.parametrize("snippet,construct,line", [
    ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k()\n"
     "{\n  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n}\n", "tiled_partition", 5),
    ("#include <cooperative_groups.h>\n__global__ void k()\n{\n"
     "  cooperative_groups::this_grid().sync();\n}\n", "this_grid", 4),
    ("#include <cooperative_groups/reduce.h>\n__global__ void k() {}\n", "collectives", 1),
])
def test_other_groups_are_refused_by_name(snippet, construct, line):
    with pytest.raises(UnsupportedConstruct) as err:
        prepare(snippet, "bad.cu")
    assert construct in str(err.value) and f"bad.cu:{line}:" in str(err.value)
