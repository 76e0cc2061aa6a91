"""The exact solvers against brute force on tiny inputs."""

from __future__ import annotations

import itertools
import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from s2s.analysis.transfers import affinity_graph, optimal_plan, optimize, optimum
from s2s.analysis.transfers.check import plan_problems
from s2s.analysis.transfers.exact import brute_force_startups, disjoint_windows, hitting_points
from s2s.analysis.transfers.graph import Direction
from s2s.analysis.transfers.hamilton import exact_path, matching_path, random_dfs_path
from s2s.analysis.transfers.timing import time_run

from .strategies import graphs, windows


@settings(max_examples=60, deadline=None)
@given(graphs(max_kernels=4))
def test_optimum_equals_brute_force_over_all_layouts_and_timings(graph):
    assume(len(graph.windows) <= 5)
    result = optimum(graph)
    assert result.startups == brute_force_startups(graph, limit=5)
    assert result.certified
    assert optimal_plan(graph).startups == result.startups


def _score(chosen: list[int], group_of: dict[int, int], windows_, late: bool):
    """(points, -sum) for late, (points, sum) for early: what hitting_points minimizes."""
    total = sum(group_of[w.vector] for w in windows_)
    return (len(set(chosen)), -total if late else total)


@settings(max_examples=150, deadline=None)
@given(windows(max_count=5, horizon=5), st.booleans())
def test_hitting_points_is_lexicographically_optimal(windows_, late):
    result = hitting_points(windows_, late)
    assert all(result[w.vector] in w for w in windows_)
    got = _score(list(result.values()), result, windows_, late)
    best = None
    for times in itertools.product(*[range(w.earliest, w.latest + 1) for w in windows_]):
        assigned = {w.vector: t for w, t in zip(windows_, times, strict=True)}
        score = _score(list(times), assigned, windows_, late)
        best = score if best is None or score < best else best
    assert got == best
    assert len(set(result.values())) == len(disjoint_windows(windows_))


@settings(max_examples=150, deadline=None)
@given(windows(max_count=5, horizon=5), st.booleans())
def test_time_run_is_optimal_for_a_fixed_order(run, late):
    points = time_run(run, late)
    assert all(p in w for p, w in zip(points, run, strict=True))

    def score(times):
        messages = 1 + sum(a != b for a, b in zip(times, times[1:], strict=False))
        return (messages, -sum(times) if late else sum(times))

    best = min(score(t) for t in itertools.product(*[range(w.earliest, w.latest + 1) for w in run]))
    assert score(points) == best


@settings(max_examples=40, deadline=None)
@given(graphs(max_kernels=5, general=False), st.integers(0, 1000))
def test_exact_path_is_the_heaviest_permutation(graph, seed):
    affinity = affinity_graph(graph)
    for component in affinity.components:
        if not 2 < len(component) <= 7:
            continue
        best = max(affinity.path_weight(p) for p in itertools.permutations(component))
        assert affinity.path_weight(exact_path(affinity, component)) == best
        heuristic = matching_path(affinity, component)
        dfs = random_dfs_path(affinity, component, 4, random.Random(seed))
        for path in (heuristic, dfs):
            assert sorted(path) == sorted(component)
            assert affinity.path_weight(path) <= best


@settings(max_examples=80, deadline=None)
@given(graphs(max_kernels=6))
def test_no_method_beats_the_optimum_and_optimal_reaches_it(graph):
    best = optimum(graph)
    for method in ("paper", "matching", "exact-path"):
        for policy in ("greedy", "tight"):
            plan = optimize(graph, method, policy)
            assert plan.startups >= best.startups
            assert plan_problems(plan) == []
    assert optimize(graph).startups == best.startups


def test_certificate_windows_are_pairwise_disjoint():
    from s2s.analysis.transfers.workloads import table4

    for workload in table4():
        result = optimum(workload.graph)
        assert result.certified, workload.name
        for direction in Direction:
            family = [w for w in result.certificate if w.direction is direction]
            assert not any(a.overlaps(b) for a, b in itertools.combinations(family, 2))
