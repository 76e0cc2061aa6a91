"""One entry point: a kernel-vector graph in, a transfer plan out.

Methods (how the memory layout is found):

* ``optimal`` (default): the exact optimum of :mod:`~s2s.analysis.transfers.exact`; no
  affinity graph needed, O(M log M + N^2) and proven optimal;
* ``paper``: the paper's pipeline -- affinity graph, components, ``attempts`` randomized DFS
  paths per component (the paper uses 4);
* ``matching``: the same pipeline with greedy edge matching plus Or-opt/2-opt;
* ``exact-path``: the same pipeline with maximum-weight paths by Held-Karp (components up
  to :data:`~s2s.analysis.transfers.hamilton.EXACT_LIMIT` vertices; larger ones fall back to
  ``matching``). It shows how much of a heuristic's gap is the path search and how much
  is the affinity graph itself, which only counts pairwise overlaps.

Every method then times its layout exactly with the chosen policy (``greedy``/``tight``),
see :mod:`~s2s.analysis.transfers.timing`.
"""

from __future__ import annotations

import random

from s2s.analysis.transfers.affinity import AffinityGraph, affinity_graph
from s2s.analysis.transfers.exact import optimal_plan
from s2s.analysis.transfers.graph import Direction, KernelVectorGraph
from s2s.analysis.transfers.hamilton import EXACT_LIMIT, exact_path, matching_path, random_dfs_path
from s2s.analysis.transfers.timing import TransferPlan, make_plan

METHODS = ("optimal", "paper", "matching", "exact-path")


def optimize(graph: KernelVectorGraph, method: str = "optimal", policy: str = "greedy",
             attempts: int = 4, seed: int = 0) -> TransferPlan:
    """The transfer plan of ``graph`` by ``method`` with timing ``policy``."""
    if method == "optimal":
        return optimal_plan(graph, policy)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (use one of {', '.join(METHODS)})")
    affinity = affinity_graph(graph)
    layout = hamiltonian_layout(affinity, method, attempts, random.Random(seed))
    return make_plan(graph, layout, policy, method)


def hamiltonian_layout(affinity: AffinityGraph, method: str, attempts: int = 4,
                       rng: random.Random | None = None) -> tuple[int, ...]:
    """Concatenated component paths: components holding transferred vectors first (by
    their first vector), then the rest; each path oriented to start at its earlier end."""
    graph = affinity.graph
    rng = rng or random.Random(0)
    components = sorted(affinity.components,
                        key=lambda c: (all(graph.window_of(v) is None for v in c), c[0]))
    layout: list[int] = []
    for component in components:
        if len(component) == 1:
            path = component
        elif method == "paper":
            path = random_dfs_path(affinity, component, attempts, rng)
        elif method == "exact-path" and len(component) <= EXACT_LIMIT:
            path = exact_path(affinity, component)
        else:
            path = matching_path(affinity, component)
        layout.extend(_oriented(graph, path))
    return tuple(layout)


def _oriented(graph: KernelVectorGraph, path) -> tuple[int, ...]:
    def key(v: int) -> tuple:
        window = graph.window_of(v)
        if window is None:
            return (1, 0, 0, v)
        return (0, window.earliest, window.latest, v)

    path = tuple(path)
    return path if key(path[0]) <= key(path[-1]) else path[::-1]


__all__ = ["METHODS", "Direction", "hamiltonian_layout", "optimize"]
