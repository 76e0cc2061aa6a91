"""The exact optimum of the transfer fusion problem, with a certificate, for any graph size.

The paper solves the layout with a Hamiltonian-path heuristic. With the layout free, the
problem is in fact an interval problem, solved exactly in polynomial time:

    *The fewest startups equal, per direction, the fewest points that hit every window of a
    fusable vector, plus one startup per unfusable transferred vector.*

Lower bound: the vectors of one message move at one point, which lies in all their windows,
so the messages of a direction give a set of points hitting all windows, and there are at
least as many messages as distinct points. Upper bound: given points hitting all windows,
give every vector one point of its window and lay each point's vectors out contiguously
(and each direction's groups apart): one message per point. The fewest hitting points of
a family of intervals equals the most pairwise disjoint intervals (interval graphs are
perfect); :func:`disjoint_windows` finds such a family independently (greedy by latest
point), and since no two disjoint windows can share a message it *certifies* optimality.

Among the hitting sets of least size, :func:`hitting_points` picks the one that makes the
*tight* policy happiest (the largest sum of upload points, each window taking the latest
chosen point inside it) or, mirrored, the *greedy* one (the smallest sum), by dynamic
programming over candidate points (window ends suffice: moving a point to the nearest window
end keeps every window it hits and never lowers an assigned point).

:func:`brute_force_startups` enumerates every layout and every timing; the test-suite uses
it on tiny graphs to check the theorem and the per-layout timing.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from s2s.analysis.transfers.graph import CPU, GPU, Direction, KernelVectorGraph, Window
from s2s.analysis.transfers.timing import TransferPlan, make_plan, prefers_late


@dataclass(frozen=True)
class Optimum:
    """Fewest startups, and the lower bound proved by pairwise disjoint windows."""

    baseline: int
    startups: int
    certificate: tuple[Window, ...]
    unfusable: int

    @property
    def saved(self) -> int:
        return self.baseline - self.startups

    @property
    def certified(self) -> bool:
        return len(self.certificate) + self.unfusable == self.startups


def disjoint_windows(windows: Sequence[Window]) -> tuple[Window, ...]:
    """A largest family of pairwise disjoint windows (greedy by latest point)."""
    chosen = []
    last = -1
    for window in sorted(windows, key=lambda w: (w.latest, w.earliest)):
        if window.earliest > last:
            chosen.append(window)
            last = window.latest
    return tuple(chosen)


def hitting_points(windows: Sequence[Window], late: bool) -> dict[int, int]:
    """Fewest points hitting all ``windows``; each window takes the latest (``late``) or
    earliest chosen point inside it; among fewest, the best sum of taken points.
    Returns vector -> point."""
    if not windows:
        return {}
    if not late:
        mirrored = [Window(w.vector, w.direction, -w.latest, -w.earliest) for w in windows]
        return {v: -p for v, p in hitting_points(mirrored, True).items()}
    ends = sorted({w.latest for w in windows})
    count = len(ends)
    # lim[a]: the next point after ends[a] may not pass the earliest-ending window that
    # starts after ends[a] (it would be skipped); covering[a]: latest ends of the windows
    # containing ends[a], sorted.
    by_start = sorted(windows, key=lambda w: w.earliest)
    starts = [w.earliest for w in by_start]
    suffix_min = [1 << 62] * (len(by_start) + 1)
    for k in range(len(by_start) - 1, -1, -1):
        suffix_min[k] = min(suffix_min[k + 1], by_start[k].latest)
    lim, covering = [], []
    for x in ends:
        lim.append(suffix_min[bisect.bisect_right(starts, x)])
        covering.append(sorted(w.latest for w in windows if w.earliest <= x <= w.latest))
    worst = (count + 1, 0)
    best: list[tuple[int, int]] = [worst] * count
    back = [-1] * count
    best[0] = (1, 0)  # the first point is the smallest latest end
    for a in range(count):
        if best[a] == worst:
            continue
        x, chain = ends[a], covering[a]
        points, cost = best[a]
        for b in range(a + 1, count):
            y = ends[b]
            if y > lim[a]:
                break
            taken = bisect.bisect_left(chain, y)  # windows containing x that end before y
            candidate = (points + 1, cost - x * taken)
            if candidate < best[b]:
                best[b], back[b] = candidate, a
    final = [(best[a][0], best[a][1] - ends[a] * len(covering[a]), a)
             for a in range(count) if best[a] != worst and lim[a] == 1 << 62]
    _, _, a = min(final)
    chosen = []
    while a >= 0:
        chosen.append(ends[a])
        a = back[a]
    chosen.reverse()
    result = {}
    for w in windows:
        result[w.vector] = chosen[bisect.bisect_right(chosen, w.latest) - 1]
    return result


def optimum(graph: KernelVectorGraph) -> Optimum:
    """The fewest startups of ``graph`` over all layouts and timings, certified."""
    certificate: list[Window] = []
    unfusable = 0
    for direction in (Direction.UP, Direction.DOWN):
        fusable = [w for w in graph.windows
                   if w.direction is direction and graph.vectors[w.vector].fusable]
        unfusable += sum(1 for w in graph.windows
                         if w.direction is direction and not graph.vectors[w.vector].fusable)
        certificate.extend(disjoint_windows(fusable))
    points = optimal_points(graph, "greedy")
    startups = unfusable + len({(graph.window_of(v).direction, p) for v, p in points.items()
                                if graph.vectors[v].fusable})
    return Optimum(len(graph.windows), startups, tuple(certificate), unfusable)


def optimal_points(graph: KernelVectorGraph, policy: str) -> dict[int, int]:
    """Transfer points of an optimal plan under ``policy`` (see :func:`hitting_points`)."""
    points: dict[int, int] = {}
    for direction in (Direction.UP, Direction.DOWN):
        windows = [w for w in graph.windows if w.direction is direction]
        fusable = [w for w in windows if graph.vectors[w.vector].fusable]
        points.update(hitting_points(fusable, prefers_late(policy, direction)))
        for w in windows:
            if not graph.vectors[w.vector].fusable:
                points[w.vector] = w.latest if prefers_late(policy, direction) else w.earliest
    return points


def optimal_plan(graph: KernelVectorGraph, policy: str = "greedy") -> TransferPlan:
    """An optimal plan: one contiguous group per (direction, point), uploads first, then
    downloads, then unfusable transferred vectors, then CPU-only and GPU-only vectors."""
    points = optimal_points(graph, policy)

    def group_key(v: int) -> tuple:
        window = graph.window_of(v)
        if window is None:
            return (3 + (graph.home[v] == GPU), 0, v)
        if not graph.vectors[v].fusable:
            return (2, points[v], v)
        return (window.direction is Direction.DOWN, points[v], v)

    layout = sorted(range(len(graph.vectors)), key=group_key)
    return make_plan(graph, layout, policy, "optimal", points)


def brute_force_startups(graph: KernelVectorGraph, limit: int = 6) -> int:
    """Fewest startups by trying every order of the transferred vectors and every timing
    (only for graphs with at most ``limit`` transferred vectors)."""
    windows = graph.windows
    if len(windows) > limit:
        raise ValueError(f"brute force over {len(windows)} transferred vectors is too slow")
    best = len(windows)
    choices = [range(w.earliest, w.latest + 1) for w in windows]
    for times in itertools.product(*choices):
        point = {w.vector: t for w, t in zip(windows, times, strict=True)}
        for order in itertools.permutations(windows):
            best = min(best, _count_messages(graph, order, point))
    return best


def _count_messages(graph: KernelVectorGraph, order: Sequence[Window], point: dict[int, int]) -> int:
    messages = 0
    previous = None
    for w in order:
        fusable = graph.vectors[w.vector].fusable
        key = (w.direction, point[w.vector])
        if previous is None or key != previous or not fusable:
            messages += 1
        previous = key if fusable else None
    return messages


__all__ = ["CPU", "Optimum", "brute_force_startups", "disjoint_windows", "hitting_points",
           "optimal_plan", "optimal_points", "optimum"]
