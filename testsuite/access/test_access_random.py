"""Enumerated ranges equal a brute-force run of every sample kernel over the threads of a box.

For random small grids, blocks, scalar values and boxes, each sample kernel's IR is evaluated
thread by thread (``kernel_eval.py``) and its global accesses collected; the ranges enumerated
from the analysed maps must equal them exactly for *must* maps and contain them for *may*
maps. The isl enumerator is used here (one plan per launch); JIT and isl are compared in
``test_access_jit.py``.
"""

from __future__ import annotations

import random

import pytest

from runtime.access import Box, KernelAccess, Launch
from runtime.access.islmaps import UNBOUNDED, merge_ranges
from testsuite.access.kernel_eval import run_threads

KERNELS = [
    "bicgk/bicg_kernel_q", "bicgk/bicg_kernel_s", "block_reduction/block_sum_atomic",
    "block_reduction/block_sum_partial", "block_reduction/final_sum",
    "elementwise_chain/scale_kernel", "elementwise_chain/clamp_kernel",
    "elementwise_chain/shift_kernel", "gemver/ger2_kernel", "gemver/gemv_t_kernel",
    "gemver/gemv_kernel", "hotspot/hotspot_step", "macro_launch/iota_kernel",
    "macro_launch/histogram_kernel", "matmul_tiled/matmul_tiled", "nbody/compute_forces",
    "nbody/integrate", "saxpy/saxpy", "softmax_warp/softmax_rows",
    "streams_events/poly_kernel", "template_launch/sum_squares_kernel",
    "template_launch/axpy_kernel", "two_files/smooth_kernel",
]
TWO_D = {"gemver/ger2_kernel", "hotspot/hotspot_step", "matmul_tiled/matmul_tiled"}


def _launch(rng: random.Random, key: str, body):
    two_d = key in TWO_D
    grid = (rng.randint(1, 3), rng.randint(1, 3) if two_d else 1, 1)
    block = (rng.randint(1, 4), rng.randint(1, 3) if two_d else 1, 1)
    if key == "softmax_warp/softmax_rows":
        block = (rng.choice((1, 2, 3, 32)), 1, 1)
    scalars = {p.name: rng.randint(0, 14) for p in body.params if p.kind == "int"}
    lo = tuple(rng.randrange(g) for g in grid)
    hi = tuple(rng.randint(low + 1, g) for low, g in zip(lo, grid, strict=True))
    return grid, block, scalars, (lo, hi)


def _as_ranges(offsets) -> list[tuple[int, int]]:
    return merge_ranges((o, o + 1) for o in offsets)


def _covered(ranges, offsets) -> bool:
    return all(any(s <= o < e for s, e in ranges) for o in offsets)


@pytest.mark.parametrize("key", KERNELS)
def test_ranges_match_brute_force(sample_kernels, key):
    body, functions, model, _ = sample_kernels[key]
    access = KernelAccess.from_dict(model.to_dict())
    rng = random.Random(key)
    for _ in range(3):
        grid, block, scalars, box = _launch(rng, key, body)
        seen = run_threads(body, functions, grid, block, scalars, box)
        launch = Launch(grid, block, scalars)
        for array in model.arrays:
            for mode, text, exact in (("read", array.read, array.read_exact),
                                      ("write", array.write, array.write_exact)):
                truth = seen.get((array.name, mode), set())
                if text is None:
                    assert not truth, (key, array.name, mode)
                    continue
                ranges = getattr(access, f"{mode}_ranges")(array.name, Box(*box), launch,
                                                           jit=False)
                context = (key, array.name, mode, grid, block, scalars, box)
                if exact:
                    assert ranges == _as_ranges(truth), context
                else:
                    assert _covered(ranges, truth), context
                    assert all(e <= UNBOUNDED for _, e in ranges)


def test_every_sample_kernel_is_exercised(sample_kernels):
    """The list above names every kernel whose maps are partly exact (the others are
    variations of the same code: elementwise and macro-launch kernels)."""
    missing = [k for k in KERNELS if k not in sample_kernels]
    assert not missing
