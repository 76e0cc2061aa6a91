"""Maximum-weight Hamiltonian paths through one component of the affinity graph.

The order of a path is the memory order of its vectors. Three solvers:

* :func:`random_dfs_path` -- the paper's heuristic: a few affinity-biased randomized
  depth-first searches; each visit order (preorder) is a candidate, the heaviest wins. The
  paper does not give the details; here a search starts at a uniformly chosen vertex and
  moves to an unvisited neighbour with probability proportional to the edge weight,
  backtracking when stuck. The random source is explicit (``random.Random``), so results
  are reproducible.
* :func:`matching_path` -- greedy edge matching (Bartley; Liao et al.): take edges from the
  heaviest down when both ends still have degree < 2 and they join different fragments,
  chain the fragments, then improve with Or-opt moves (a run of 1-3 vertices moved
  elsewhere, possibly reversed) and 2-opt reversals until no move gains.
* :func:`exact_path` -- Held-Karp dynamic programming over vertex subsets, O(2^n n^2): the
  true maximum for components of up to ``EXACT_LIMIT`` vertices.

Weights come from :class:`~s2s.analysis.transfers.affinity.AffinityGraph` (missing edges
weigh 0, so every permutation is a path; a heavier path is a better memory order).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from s2s.analysis.transfers.affinity import AffinityGraph

EXACT_LIMIT = 12


def random_dfs_path(affinity: AffinityGraph, component: Sequence[int], attempts: int,
                    rng: random.Random) -> tuple[int, ...]:
    """The best preorder of ``attempts`` weight-biased randomized DFS runs (the paper's)."""
    if len(component) <= 2:
        return tuple(component)
    adjacency = affinity.adjacency
    best: tuple[int, ...] = tuple(component)
    best_weight = -1
    for _ in range(max(1, attempts)):
        order = _random_dfs(adjacency, component, rng)
        weight = affinity.path_weight(order)
        if weight > best_weight:
            best, best_weight = tuple(order), weight
    return best


def _random_dfs(adjacency, component: Sequence[int], rng: random.Random) -> list[int]:
    start = component[rng.randrange(len(component))]
    visited = {start}
    order = [start]
    stack = [start]
    while stack:
        here = stack[-1]
        choices = [(v, w) for v, w in adjacency[here].items() if v not in visited]
        if not choices:
            stack.pop()
            continue
        total = sum(w for _, w in choices)
        pick = rng.random() * total
        nxt = choices[-1][0]
        for candidate, weight in choices:
            pick -= weight
            if pick < 0:
                nxt = candidate
                break
        visited.add(nxt)
        order.append(nxt)
        stack.append(nxt)
    return order


def matching_path(affinity: AffinityGraph, component: Sequence[int],
                  max_rounds: int = 50) -> tuple[int, ...]:
    """Greedy edge matching, then Or-opt and 2-opt improvement (first improvement)."""
    if len(component) <= 2:
        return tuple(component)
    local = {v: k for k, v in enumerate(component)}
    weight = [[0] * len(component) for _ in component]
    for v in component:
        row = weight[local[v]]
        for u, w in affinity.adjacency[v].items():
            row[local[u]] = w
    path = [local[v] for v in _greedy_fragments(affinity, component)]
    for _ in range(max_rounds):
        improved = _or_opt(weight, path)
        improved = _two_opt(weight, path) or improved
        if not improved:
            break
    return tuple(component[k] for k in path)


def _greedy_fragments(affinity: AffinityGraph, component: Sequence[int]) -> list[int]:
    members = set(component)
    edges = sorted(((w, u, v) for (u, v), w in affinity.edges.items() if u in members),
                   key=lambda e: (-e[0], e[1], e[2]))
    parent = {v: v for v in component}

    def find(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    links: dict[int, list[int]] = {v: [] for v in component}
    for _, u, v in edges:
        if len(links[u]) < 2 and len(links[v]) < 2 and find(u) != find(v):
            parent[find(u)] = find(v)
            links[u].append(v)
            links[v].append(u)
    path: list[int] = []
    seen: set[int] = set()
    for start in component:
        if start in seen or len(links[start]) == 2:
            continue
        previous, here = None, start
        while here is not None:
            path.append(here)
            seen.add(here)
            following = [n for n in links[here] if n != previous]
            previous, here = here, (following[0] if following else None)
    return path


def _or_opt(weight: list[list[int]], path: list[int]) -> bool:
    """Move runs of 1..3 vertices (maybe reversed) to their best other place, scanning the
    path once; True if any move gained. ``weight`` is the component's dense matrix."""
    improved = False
    for length in (1, 2, 3):
        i = 0
        while i + length <= len(path):
            n = len(path)
            j = i + length - 1
            first, last = path[i], path[j]
            left = path[i - 1] if i > 0 else None
            right = path[j + 1] if j + 1 < n else None
            removed = (weight[left][first] if left is not None else 0) + \
                      (weight[last][right] if right is not None else 0) - \
                      (weight[left][right] if left is not None and right is not None else 0)
            rest = path[:i] + path[j + 1:]
            best_gain, best_at, reverse = 0, None, False
            wf, wl = weight[first], weight[last]
            for at in range(len(rest) + 1):
                if at == i:
                    continue
                a = rest[at - 1] if at > 0 else None
                b = rest[at] if at < len(rest) else None
                base = weight[a][b] if a is not None and b is not None else 0
                forward = (wf[a] if a is not None else 0) + (wl[b] if b is not None else 0) - base
                backward = (wl[a] if a is not None else 0) + (wf[b] if b is not None else 0) - base
                if forward - removed > best_gain:
                    best_gain, best_at, reverse = forward - removed, at, False
                if backward - removed > best_gain:
                    best_gain, best_at, reverse = backward - removed, at, True
            if best_at is not None:
                run = path[i:j + 1]
                path[:] = rest[:best_at] + (run[::-1] if reverse else run) + rest[best_at:]
                improved = True
            i += 1
    return improved


def _two_opt(weight: list[list[int]], path: list[int]) -> bool:
    """Reverse every sub-path whose reversal gains, in one scan; True if any did."""
    n = len(path)
    improved = False
    for i in range(n - 1):
        before = weight[path[i - 1]][path[i]] if i > 0 else 0
        for j in range(i + 1, n):
            after = weight[path[j]][path[j + 1]] if j + 1 < n else 0
            new_before = weight[path[i - 1]][path[j]] if i > 0 else 0
            new_after = weight[path[i]][path[j + 1]] if j + 1 < n else 0
            if new_before + new_after > before + after:
                path[i:j + 1] = path[i:j + 1][::-1]
                before = weight[path[i - 1]][path[i]] if i > 0 else 0
                improved = True
    return improved


def exact_path(affinity: AffinityGraph, component: Sequence[int]) -> tuple[int, ...]:
    """A maximum-weight Hamiltonian path by Held-Karp DP (components up to EXACT_LIMIT)."""
    n = len(component)
    if n > EXACT_LIMIT:
        raise ValueError(f"exact_path: {n} vertices exceed EXACT_LIMIT={EXACT_LIMIT}")
    if n <= 2:
        return tuple(component)
    weight = [[affinity.weight(u, v) for v in component] for u in component]
    full = (1 << n) - 1
    # best[mask][last]: heaviest path over the vertices of mask ending in last (-1: none)
    best = [[-1] * n for _ in range(1 << n)]
    for last in range(n):
        best[1 << last][last] = 0
    for mask in range(1, full + 1):
        row = best[mask]
        for last in range(n):
            value = row[last]
            if value < 0:
                continue
            wl = weight[last]
            for nxt in range(n):
                bit = 1 << nxt
                if mask & bit:
                    continue
                candidate = value + wl[nxt]
                if candidate > best[mask | bit][nxt]:
                    best[mask | bit][nxt] = candidate
    last = max(range(n), key=lambda k: best[full][k])
    order, mask = [last], full
    while mask != (1 << last):
        previous_mask = mask & ~(1 << last)
        value = best[mask][last]
        last = next(k for k in range(n) if previous_mask >> k & 1
                    and best[previous_mask][k] >= 0
                    and best[previous_mask][k] + weight[k][last] == value)
        order.append(last)
        mask = previous_mask
    return tuple(component[k] for k in reversed(order))
