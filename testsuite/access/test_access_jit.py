"""The llvmlite enumerators give exactly the isl enumerators' ranges, for random boxes.

One launch per kernel (the JIT compiles once per kernel, array, mode and launch values and is
cached), Hypothesis picks boxes. Kernels chosen for their shapes: 1-D, 2-D stencil with halo,
grid-stride loop, row loop (bicgk), strided write (one element per row).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.access import Box, KernelAccess, Launch

CASES = {
    "saxpy/saxpy": ((7, 1, 1), (32, 1, 1), {"n": 200}),
    "hotspot/hotspot_step": ((5, 4, 1), (8, 8, 1), {"width": 37, "height": 29}),
    "block_reduction/block_sum_partial": ((4, 1, 1), (16, 1, 1), {"n": 301}),
    "bicgk/bicg_kernel_s": ((3, 1, 1), (16, 1, 1), {"nx": 9, "ny": 40}),
    "matmul_tiled/matmul_tiled": ((3, 2, 1), (16, 16, 1), {"M": 30, "N": 41, "K": 19}),
}


def boxes(grid):
    def one(axis):
        return st.integers(0, grid[axis] - 1).flatmap(
            lambda lo: st.tuples(st.just(lo), st.integers(lo + 1, grid[axis])))
    return st.tuples(one(0), one(1), one(2)).map(
        lambda b: Box((b[0][0], b[1][0], b[2][0]), (b[0][1], b[1][1], b[2][1])))


@pytest.mark.parametrize("key", sorted(CASES))
def test_jit_equals_isl(sample_kernels, key):
    grid, block, scalars = CASES[key]
    model = sample_kernels[key][2]
    access = KernelAccess.from_dict(model.to_dict())
    launch = Launch(grid, block, scalars)

    @settings(max_examples=25, deadline=None, derandomize=True)
    @given(boxes(grid))
    def check(box):
        for array in access.arrays:
            for mode in ("read", "write"):
                method = getattr(access, f"{mode}_ranges")
                assert method(array, box, launch, jit=True) == method(array, box, launch,
                                                                      jit=False)

    check()
