"""The llvmlite enumerators give exactly the isl enumerators' ranges, for random boxes.

One launch per kernel (the JIT compiles once per kernel, array, mode and launch values and is
cached), Hypothesis picks boxes. Kernels chosen for their shapes: 1-D, 2-D stencil with halo,
grid-stride loop, row loop (bicgk), strided write (one element per row). The batched form
(``launch_ranges``: all boxes and arrays of a launch in one native call, plans chosen by which
axes each box spans) is compared with the plan for any box.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.access import Box, KernelAccess, Launch
from runtime.access.islmaps import NO_FULL_AXES, box_pattern

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


def spanning_boxes(grid):
    """Boxes that span the grid along a random set of axes (row bands, column bands, the whole
    grid): the boxes the pattern-specialised plans serve."""
    return st.tuples(boxes(grid), st.tuples(st.booleans(), st.booleans(), st.booleans())).map(
        lambda pair: Box(tuple(0 if f else lo for lo, f in zip(pair[0].lo, pair[1], strict=True)),
                         tuple(g if f else hi for hi, g, f in zip(pair[0].hi, grid, pair[1], strict=True))))


@pytest.mark.parametrize("key", sorted(CASES))
def test_launch_ranges_equal_the_general_plan(sample_kernels, key):
    """One native call for all boxes and arrays (``launch_ranges``, plans chosen by the boxes'
    patterns) gives the ranges of the plan for any box, query by query, JIT and isl alike."""
    grid, block, scalars = CASES[key]
    access = KernelAccess.from_dict(sample_kernels[key][2].to_dict())
    launch = Launch(grid, block, scalars)

    @settings(max_examples=15, deadline=None, derandomize=True)
    @given(st.lists(st.one_of(spanning_boxes(grid), boxes(grid)), min_size=1, max_size=4))
    def check(box_list):
        general = [access.enumerator(array, mode, launch, False, NO_FULL_AXES).ranges(box)
                   for box in box_list for array, mode in access.queries]
        assert access.launch_ranges(box_list, launch, jit=True) == general
        assert access.launch_ranges(box_list, launch, jit=False) == general
        again = access.launch_ranges(box_list, launch, jit=True)     # the prepared call, reused
        assert again == general

    check()


def test_row_bands_need_no_row_loop(sample_kernels):
    """Over row bands the hotspot maps are one interval per box: the plan has no row width."""
    access = KernelAccess.from_dict(sample_kernels["hotspot/hotspot_step"][2].to_dict())
    launch = Launch((8, 8, 1), (16, 16, 1), {"width": 128, "height": 128})
    band = Box((0, 2, 0), (8, 5, 1))
    for array, mode in access.queries:
        enumerator = access.enumerator(array, mode, launch, False, box_pattern(band, launch.grid))
        assert enumerator.plan.width is None and len(enumerator.plan.pieces) == 1
        assert enumerator.ranges(band) == access.enumerator(array, mode, launch, False).ranges(band)


def test_batch_grows_its_buffer(sample_kernels):
    """More ranges than the first buffer holds (one per row of half-width boxes): the driver is
    called again with room for all of them, and the answer equals the per-query one."""
    access = KernelAccess.from_dict(sample_kernels["hotspot/hotspot_step"][2].to_dict())
    launch = Launch((8, 16, 1), (16, 16, 1), {"width": 128, "height": 256})
    halves = [Box((0, 0, 0), (4, 16, 1)), Box((4, 0, 0), (8, 16, 1))]
    got = access.launch_ranges(halves, launch, jit=True)
    assert sum(map(len, got)) > 16 * len(got)
    assert got == [getattr(access, f"{mode}_ranges")(array, box, launch, jit=False)
                   for box in halves for array, mode in access.queries]
