"""``mpirun -np R`` jobs of ``s2s mgpu`` rewrites on localhost: R = 2, 4 ranks x D = 1, 2 cpu devices each.

For the stencil (hotspot, pointer swap), the tiled matmul and n-body (two kernels per step, all-to-all
reads): the job prints exactly what the program prints as one process on one device, and the bytes
that cross between ranks in the launches are the minimum the partition allows, computed here from the
partition (runtime.partition.split_grid: which blocks each device runs) and the initial linear
distribution of host data (256-byte grain, docs/runtime.md) -- not from the runtime's trackers or copy
plans.  The bytes the ranks' MPI layer counted as sent equal the planned cross-rank bytes (nothing
moves that the statistics do not show).
"""

from __future__ import annotations

import json

import pytest
from mpi_support import (
    build_sample,
    cross_rank_bytes,
    missing,
    run_job,
    run_single,
    sent_between_ranks,
)

from runtime.api import _linear_cuts
from runtime.partition import split_grid

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

CONFIGS = [(2, 1), (2, 2), (4, 1), (4, 2)]
#: sample -> its arguments (the samples' defaults; hotspot with 6 steps)
ARGS = {"hotspot": (500, 300, 6), "matmul_tiled": (300, 250, 200), "nbody": (1000, 3)}


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """sample -> (executable, stdout as one process on one device)."""
    out = {}
    for name, args in ARGS.items():
        work = tmp_path_factory.mktemp(name)
        exe = build_sample(name, work)
        out[name] = (exe, run_single(exe, 1, args)[0])
    return out


def _minus(need: tuple[int, int], held: tuple[int, int]) -> int:
    """Bytes of ``need`` outside ``held`` (half-open byte ranges)."""
    overlap = max(0, min(need[1], held[1]) - max(need[0], held[0]))
    return need[1] - need[0] - overlap


def _rank_boxes(grid, ranks: int, devices: int):
    boxes = split_grid(grid, ranks * devices)
    return [[b for b in boxes[r * devices:(r + 1) * devices] if not b.empty] for r in range(ranks)]


def minimal_hotspot(ranks: int, devices: int) -> list[int]:
    """Steady-state steps: one 500-float row each way across each of the R - 1 rank boundaries."""
    width, _, steps = ARGS["hotspot"]
    return [2 * (ranks - 1) * width * 4] * (steps - 1)


def minimal_matmul(ranks: int, devices: int) -> list[int]:
    """One launch: every rank reads all of B and the rows of A of its block rows; it holds the linear
    share (over all devices) of each that cudaMemcpy gave its devices."""
    m, n, k = ARGS["matmul_tiled"]
    grid = ((n + 15) // 16, (m + 15) // 16, 1)
    total = 0
    for r, boxes in enumerate(_rank_boxes(grid, ranks, devices)):
        if not boxes:
            continue
        rows = (16 * min(b.lo[1] for b in boxes), min(m, 16 * max(b.hi[1] for b in boxes)))
        for nbytes, need in ((m * k * 4, (rows[0] * k * 4, rows[1] * k * 4)), (k * n * 4, (0, k * n * 4))):
            cuts = _linear_cuts(nbytes, ranks * devices)
            total += _minus(need, (cuts[r * devices], cuts[(r + 1) * devices]))
    return [total]


def minimal_nbody(ranks: int, devices: int) -> list[int]:
    """compute_forces after the first step: every rank with work reads all positions (float4) and holds
    those its boxes' integrate wrote."""
    count, steps = ARGS["nbody"]
    total = 0
    for boxes in _rank_boxes(((count + 255) // 256, 1, 1), ranks, devices):
        own = sum(min(count, 256 * b.hi[0]) - 256 * b.lo[0] for b in boxes)
        total += (count - own) * 16 if boxes else 0
    return [total] * (steps - 1)


def _launch_bytes(name: str, stats: dict) -> list[int]:
    launches = stats["launches"]
    if name == "hotspot":
        return [cross_rank_bytes(launch["links"]) for launch in launches[1:]]
    if name == "nbody":
        forces = [launch for launch in launches if launch["kernel"] == "compute_forces"]
        integrate = [launch for launch in launches if launch["kernel"] == "integrate"]
        assert [cross_rank_bytes(launch["links"]) for launch in integrate[1:]] == [0] * (len(integrate) - 1)
        return [cross_rank_bytes(launch["links"]) for launch in forces[1:]]
    return [cross_rank_bytes(launch["links"]) for launch in launches]


MINIMAL = {"hotspot": minimal_hotspot, "matmul_tiled": minimal_matmul, "nbody": minimal_nbody}


@pytest.mark.parametrize("ranks,devices", CONFIGS)
@pytest.mark.parametrize("name", list(ARGS))
def test_job_prints_the_same_and_moves_the_minimum(name, ranks, devices, programs, tmp_path):
    exe, expected = programs[name]
    stats_path = tmp_path / "stats.json"
    proc = run_job(exe, ranks, devices, ARGS[name], stats_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    stats = json.loads(stats_path.read_text())
    assert stats["devices"] == ranks * devices and stats["mpi"]["ranks"] == ranks
    assert all(launch["partitioned"] for launch in stats["launches"])
    assert _launch_bytes(name, stats) == MINIMAL[name](ranks, devices)
    planned = sum(cross_rank_bytes(launch["links"]) for launch in stats["launches"])
    assert sent_between_ranks(stats, "launch") == planned
    htod = {link: n for link, n in stats["memcpy_links"].items() if link.startswith("host->")}
    assert sent_between_ranks(stats, "memcpy_htod") == cross_rank_bytes(htod)
