"""The affinity graph of section 4: which vectors gain from being neighbours in memory.

Two vectors get an edge when their transfer windows in the same direction overlap (they
could then travel in one message). The paper weights such an edge 1 plus a small bonus
``eps`` when both are operands of one kernel (siblings), so that among equally good paths
the one keeping a kernel's operands together wins; this steers the *tight* timing towards
late joint uploads. Pairs without overlapping windows get no edge even when they are
siblings (in Figure 3, F and its CPU-only sibling G are not connected).

Weights are integers: ``SCALE * overlap + bonus`` with ``SCALE`` larger than the number of
edges a path can have, so bonuses only ever break ties between paths of equal overlap
count. Vectors with ``fusable=False`` get no edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

from s2s.analysis.transfers.graph import Direction, KernelVectorGraph


@dataclass(frozen=True)
class AffinityGraph:
    """Undirected weighted graph over all vectors of ``graph``; ``edges`` maps ``(u, v)``
    with ``u < v`` to an integer weight ``scale * overlaps + bonus``."""

    graph: KernelVectorGraph
    edges: dict[tuple[int, int], int]
    scale: int

    @cached_property
    def adjacency(self) -> tuple[dict[int, int], ...]:
        """Neighbour -> weight, per vector."""
        result: list[dict[int, int]] = [{} for _ in self.graph.vectors]
        for (u, v), weight in self.edges.items():
            result[u][v] = weight
            result[v][u] = weight
        return tuple(result)

    def weight(self, u: int, v: int) -> int:
        return self.edges.get((u, v) if u < v else (v, u), 0)

    def path_weight(self, path: list[int] | tuple[int, ...]) -> int:
        edges = self.edges
        total = 0
        for u, v in zip(path, path[1:], strict=False):
            total += edges.get((u, v) if u < v else (v, u), 0)
        return total

    @cached_property
    def components(self) -> tuple[tuple[int, ...], ...]:
        """Connected components (vertex lists in increasing order), ordered by first vertex."""
        return connected_components(len(self.graph.vectors), self.adjacency)


def affinity_graph(graph: KernelVectorGraph, sibling_bonus: bool = True) -> AffinityGraph:
    """Edges between vectors whose windows in one direction overlap, plus the sibling bonus.

    Windows are swept in order of their earliest point, so the work is proportional to the
    number of overlapping pairs rather than to all pairs.
    """
    scale = len(graph.vectors) + 1
    edges: dict[tuple[int, int], int] = {}
    for direction in (Direction.UP, Direction.DOWN):
        windows = sorted(
            (w for w in graph.windows if w.direction is direction and graph.vectors[w.vector].fusable),
            key=lambda w: w.earliest)
        active: list = []
        for window in windows:
            active = [a for a in active if a.latest >= window.earliest]
            for other in active:
                u, v = sorted((window.vector, other.vector))
                edges[(u, v)] = edges.get((u, v), 0) + scale
            active.append(window)
    if sibling_bonus:
        for kernel in graph.kernels:
            for group in (kernel.reads, kernel.writes):
                for u, v in combinations(sorted(set(group)), 2):
                    if (u, v) in edges and edges[(u, v)] % scale == 0:
                        edges[(u, v)] += 1
    return AffinityGraph(graph, edges, scale)


def connected_components(count: int, adjacency) -> tuple[tuple[int, ...], ...]:
    seen = [False] * count
    result = []
    for start in range(count):
        if seen[start]:
            continue
        seen[start] = True
        stack, members = [start], []
        while stack:
            u = stack.pop()
            members.append(u)
            for v in adjacency[u]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(v)
        result.append(tuple(sorted(members)))
    return tuple(result)
