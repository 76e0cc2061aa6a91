"""Transfer timing for a memory layout, fused transfers, and the pooled allocation plan.

Given the memory order of the vectors (the *layout*), each vector that must change device
gets a point in its window. Vectors adjacent in the layout, moving in the same direction at
the same point, travel in one message (one startup). For a fixed layout the best timing is
found exactly: every maximal run of layout-adjacent vectors moving in one direction is cut
into the fewest segments whose windows share a point (dynamic programming over cut
positions), and each segment moves at one point of that common part.

Both policies reach the fewest startups for the layout; they differ in the point chosen
where there is a choice (the paper's switch between transfer saving and device memory):

* ``greedy``: the earliest point, in both directions (the paper's greedy choice);
* ``tight``: uploads as late as possible (shorter lifetimes in accelerator memory) and
  downloads as early as possible (a device copy can be freed sooner). Unlike the paper's
  tight choice, which is locally optimal and may lose fusions, this one never gives up a
  startup for memory: among the timings with fewest startups it takes the latest uploads.

The allocation plan lays the vectors out in one host pool and one device pool (allocation
fusion, the issue's pooled allocation): transferred vectors first, in layout order and at
the same offsets in both pools, so a fused transfer is one contiguous copy; then the
vectors only the CPU needs (host pool) and only the GPU needs (device pool). Offsets are
aligned; a fused copy also moves the alignment padding between its vectors, which is
harmless because both pools have the same padding there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from s2s.analysis.transfers.graph import (
    CPU,
    GPU,
    Direction,
    KernelVectorGraph,
    Residency,
    Window,
    residency,
)

POLICIES = ("greedy", "tight")


def prefers_late(policy: str, direction: Direction) -> bool:
    if policy not in POLICIES:
        raise ValueError(f"unknown timing policy {policy!r} (use one of {', '.join(POLICIES)})")
    return policy == "tight" and direction is Direction.UP


@dataclass(frozen=True)
class Transfer:
    """One message: ``vectors`` (layout order, adjacent in memory) move at ``point``."""

    direction: Direction
    point: int
    vectors: tuple[int, ...]


@dataclass(frozen=True)
class TransferPlan:
    """A memory layout (permutation of all vectors) and the fused transfers, by point."""

    graph: KernelVectorGraph
    layout: tuple[int, ...]
    transfers: tuple[Transfer, ...]
    policy: str
    method: str

    @property
    def baseline(self) -> int:
        """Startups of the baseline: every transferred vector in its own message."""
        return len(self.graph.windows)

    @property
    def startups(self) -> int:
        return len(self.transfers)

    @property
    def saved(self) -> int:
        return self.baseline - self.startups

    @cached_property
    def points(self) -> dict[int, int]:
        """The transfer point of every transferred vector."""
        return {v: t.point for t in self.transfers for v in t.vectors}

    @cached_property
    def position(self) -> dict[int, int]:
        """Layout position (the paper's memory location) of every vector."""
        return {v: k for k, v in enumerate(self.layout)}

    @cached_property
    def residency(self) -> Residency:
        return residency(self.graph, self.points)


def time_layout(graph: KernelVectorGraph, layout: Sequence[int], policy: str) -> dict[int, int]:
    """Points for every transferred vector, fewest startups for ``layout``, ties by policy."""
    points: dict[int, int] = {}
    for run in layout_runs(graph, layout):
        late = prefers_late(policy, run[0].direction)
        points.update(zip((w.vector for w in run), time_run(run, late), strict=True))
    return points


def layout_runs(graph: KernelVectorGraph, layout: Sequence[int]) -> list[list[Window]]:
    """Maximal runs of layout-adjacent fusable vectors moving in the same direction."""
    runs: list[list[Window]] = []
    previous = None
    for v in layout:
        window = graph.window_of(v)
        if window is None:
            previous = None
            continue
        fusable = graph.vectors[v].fusable
        if previous is not None and previous.direction is window.direction and fusable:
            runs[-1].append(window)
        else:
            runs.append([window])
        previous = window if fusable else None
    return runs


def time_run(run: Sequence[Window], late: bool) -> list[int]:
    """Fewest segments with a common point, then latest (``late``) or earliest points.

    ``best[j]`` is the best (segments, cost) for the first ``j`` windows; a segment
    ``i..j-1`` is possible while the running intersection of its windows is non-empty, so
    the inner loop stops at the first window that empties it.
    """
    n = len(run)
    best: list[tuple[int, int]] = [(0, 0)] + [(n + 1, 0)] * n
    cut = [0] * (n + 1)
    when = [0] * (n + 1)
    for j in range(1, n + 1):
        lo, hi = -1, 1 << 62
        current = best[j]
        for i in range(j - 1, -1, -1):
            window = run[i]
            lo = max(lo, window.earliest)
            hi = min(hi, window.latest)
            if lo > hi:
                break
            point = hi if late else lo
            segments, cost = best[i]
            candidate = (segments + 1, cost + (j - i) * (-point if late else point))
            if candidate < current:
                current, cut[j], when[j] = candidate, i, point
        best[j] = current
    result = [0] * n
    j = n
    while j > 0:
        i = cut[j]
        result[i:j] = [when[j]] * (j - i)
        j = i
    return result


def fuse(graph: KernelVectorGraph, layout: Sequence[int], points: Mapping[int, int]) -> tuple[Transfer, ...]:
    """Group layout-adjacent fusable vectors with equal direction and point into messages,
    ordered by point, downloads of a point (after the previous kernel) before its uploads."""
    groups: list[list] = []
    previous = None
    for v in layout:
        window = graph.window_of(v)
        if window is None:
            previous = None
            continue
        key = (window.direction, points[v])
        if previous == key and graph.vectors[v].fusable:
            groups[-1][1].append(v)
        else:
            groups.append([key, [v]])
        previous = key if graph.vectors[v].fusable else None
    transfers = [Transfer(direction, point, tuple(vs)) for (direction, point), vs in groups]
    order = {v: k for k, v in enumerate(layout)}
    transfers.sort(key=lambda t: (t.point, t.direction is Direction.UP, order[t.vectors[0]]))
    return tuple(transfers)


def make_plan(graph: KernelVectorGraph, layout: Sequence[int], policy: str, method: str,
              points: Mapping[int, int] | None = None) -> TransferPlan:
    """Time ``layout`` with ``policy`` (or use ``points``) and fuse; the layout must be a
    permutation of all vectors."""
    layout = tuple(layout)
    if sorted(layout) != list(range(len(graph.vectors))):
        raise ValueError("layout must be a permutation of all vectors")
    if points is None:
        points = time_layout(graph, layout, policy)
    return TransferPlan(graph, layout, fuse(graph, layout, points), policy, method)


# --- allocation fusion ---------------------------------------------------------------------


@dataclass(frozen=True)
class AllocationPlan:
    """Byte offsets of every vector in the host pool and in the device pool (None where a
    vector has no copy in that space), the pool sizes, and the allocation counts before
    (one allocation per vector and space) and after fusion (one pool per space)."""

    host_offset: tuple[int | None, ...]
    device_offset: tuple[int | None, ...]
    host_bytes: int
    device_bytes: int
    alignment: int

    @property
    def baseline_allocations(self) -> int:
        return sum(o is not None for o in self.host_offset) + sum(o is not None for o in self.device_offset)

    @property
    def fused_allocations(self) -> int:
        return (self.host_bytes > 0) + (self.device_bytes > 0)

    def transfer_range(self, plan: TransferPlan, transfer: Transfer) -> tuple[int, int]:
        """(offset, bytes) of a fused message; the same offset in both pools."""
        first, last = transfer.vectors[0], transfer.vectors[-1]
        start = self.host_offset[first]
        return start, self.host_offset[last] + plan.graph.vectors[last].size - start


def allocation_plan(plan: TransferPlan, alignment: int = 256) -> AllocationPlan:
    """Pooled offsets: transferred vectors (layout order, same offsets in both pools), then
    the host-only vectors in the host pool and the device-only ones in the device pool."""
    graph = plan.graph
    transferred = [v for v in plan.layout if graph.window_of(v) is not None]
    host_only = [v for v in plan.layout if graph.window_of(v) is None and graph.home[v] == CPU]
    device_only = [v for v in plan.layout if graph.window_of(v) is None and graph.home[v] == GPU]
    host: list[int | None] = [None] * len(graph.vectors)
    device: list[int | None] = [None] * len(graph.vectors)
    shared_end = _place(graph, transferred, 0, alignment, host, device)
    host_end = _place(graph, host_only, shared_end, alignment, host)
    device_end = _place(graph, device_only, shared_end, alignment, device)
    return AllocationPlan(tuple(host), tuple(device), host_end, device_end, alignment)


def _place(graph: KernelVectorGraph, vectors: Sequence[int], offset: int, alignment: int,
           *tables: list) -> int:
    for v in vectors:
        offset = -(-offset // alignment) * alignment
        for table in tables:
            table[v] = offset
        offset += graph.vectors[v].size
    return offset


__all__ = ["CPU", "GPU", "AllocationPlan", "Transfer", "TransferPlan", "allocation_plan", "fuse",
           "make_plan", "time_layout", "time_run"]
