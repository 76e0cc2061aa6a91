"""Invariants of plans on random graphs, the paper's workloads, the generator, allocation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2s.analysis.transfers import (
    CPU,
    GPU,
    METHODS,
    POLICIES,
    Call,
    GraphError,
    allocation_plan,
    graph_from_names,
    optimize,
    optimum,
    rename_to_ssa,
)
from s2s.analysis.transfers.check import plan_problems
from s2s.analysis.transfers.workloads import RANDOM_ROWS, random_graph, table4

from .strategies import graphs


@settings(max_examples=120, deadline=None)
@given(graphs(max_kernels=8, max_init=4), st.sampled_from(METHODS), st.sampled_from(POLICIES),
       st.integers(0, 3))
def test_plans_run_correctly_and_fused_groups_are_contiguous(graph, method, policy, seed):
    plan = optimize(graph, method, policy, seed=seed)
    assert sorted(plan.layout) == list(range(len(graph.vectors)))
    assert plan_problems(plan) == []
    # every transferred vector moves exactly once, inside its window
    assert sorted(plan.points) == sorted(w.vector for w in graph.windows)
    assert all(plan.points[w.vector] in w for w in graph.windows)
    assert plan.startups >= optimum(graph).startups


@settings(max_examples=120, deadline=None)
@given(graphs(max_kernels=10, max_init=4, general=False))
def test_tight_never_costs_a_startup_and_never_holds_device_memory_longer(graph):
    greedy, tight = optimize(graph, "optimal", "greedy"), optimize(graph, "optimal", "tight")
    assert tight.startups == greedy.startups
    assert tight.residency.volume <= greedy.residency.volume
    uploads = [w.vector for w in graph.windows if w.direction.value == "upload"]
    assert sum(tight.points[v] for v in uploads) >= sum(greedy.points[v] for v in uploads)


@settings(max_examples=100, deadline=None)
@given(graphs(max_kernels=8, max_init=4), st.sampled_from([1, 16, 256]))
def test_allocation_plan_keeps_messages_contiguous_in_both_pools(graph, alignment):
    plan = optimize(graph, "matching")
    pools = allocation_plan(plan, alignment)
    for offsets, size in ((pools.host_offset, pools.host_bytes), (pools.device_offset, pools.device_bytes)):
        placed = sorted((o, v) for v, o in enumerate(offsets) if o is not None)
        for (a, u), (b, _) in zip(placed, placed[1:], strict=False):
            assert a + graph.vectors[u].size <= b  # no overlap
        assert all(o % alignment == 0 for o, _ in placed)
        assert not placed or placed[-1][0] + graph.vectors[placed[-1][1]].size == size
    for v in (w.vector for w in graph.windows):
        assert pools.host_offset[v] == pools.device_offset[v] is not None
    copies = 0
    for v in range(len(graph.vectors)):
        on_host = graph.home[v] == CPU or graph.window_of(v) is not None
        on_device = graph.home[v] == GPU or graph.window_of(v) is not None
        assert (pools.host_offset[v] is not None) == on_host
        assert (pools.device_offset[v] is not None) == on_device
        copies += on_host + on_device
    assert pools.baseline_allocations == copies
    assert pools.fused_allocations == (pools.host_bytes > 0) + (pools.device_bytes > 0)
    for transfer in plan.transfers:
        offset, length = pools.transfer_range(plan, transfer)
        covered = sum(graph.vectors[v].size for v in transfer.vectors)
        assert covered <= length < covered + alignment * len(transfer.vectors)


STRUCTURED = {  # paper's greedy saving -> ours must be at least that (exact optimum)
    "Linear chain": 0, "Out-bound bin. tree, all GPU": 15, "In-bound bin. tree, all GPU": 15,
    "Horner's rule": 11, "4x4 blocks Cholesky": 14, "Dto., SYRK calls also on CPU": 9,
    "2x2 blocks matrix multiply": 11, "Conj. grad. loop, steady state": 2,
}


def test_structured_rows_reach_at_least_the_papers_savings():
    rows = [w for w in table4() if not w.random]
    assert len(rows) == 13
    for workload in rows:
        greedy = optimize(workload.graph, "optimal", "greedy")
        tight = optimize(workload.graph, "optimal", "tight")
        assert greedy.saved >= workload.paper_greedy, workload.name
        assert tight.saved >= workload.paper_tight, workload.name
        assert plan_problems(greedy) == plan_problems(tight) == []
        assert len(workload.graph.kernels) == workload.n_kernels
    by_name = {w.name: optimize(w.graph).saved for w in rows}
    assert by_name["Linear chain"] == 0
    assert by_name["Out-bound bin. tree, all GPU"] == 15  # only the 16 leaf downloads fuse
    assert by_name["Horner's rule"] == 11 and by_name["Conj. grad. loop, steady state"] == 2
    assert by_name["4x4 blocks Cholesky"] == 15  # one more than the paper


@pytest.mark.parametrize("row", RANDOM_ROWS, ids=lambda r: f"N{r[0]}-M{r[1]}")
def test_random_generator_follows_its_parameters(row):
    n, m_init, (in_lo, in_hi), (out_lo, out_hi) = row[:4]
    graph = random_graph(n, m_init, (in_lo, in_hi), (out_lo, out_hi), seed=7)
    assert len(graph.kernels) == n
    assert sum(v.entry is not None for v in graph.vectors) == m_init
    for k, kernel in enumerate(graph.kernels):
        available = m_init + sum(len(x.writes) for x in graph.kernels[:k])
        assert min(in_lo, available) <= len(kernel.reads) <= in_hi
        assert out_lo <= len(kernel.writes) <= out_hi
    read = {v for kernel in graph.kernels for v in kernel.reads}
    assert all((CPU in v.live_out) == (i not in read and v.entry is None) for i, v in enumerate(graph.vectors))
    assert random_graph(n, m_init, (in_lo, in_hi), (out_lo, out_hi), seed=7) == graph


def test_rename_to_ssa_versions_in_place_updates():
    graph = rename_to_ssa([Call("k0", GPU, ("x",), ("x",)), Call("k1", CPU, ("x", "y"), ("y",))],
                          live_in=["x", "y"], live_out=["x", "y"])
    assert [v.name for v in graph.vectors] == ["x.0", "y.0", "x.1", "y.1"]
    assert [v.storage for v in graph.vectors] == ["x", "y", "x", "y"]
    assert graph.vectors[graph.index("x.1")].live_out == frozenset({CPU})
    assert graph.vectors[graph.index("x.0")].live_out == frozenset()


@pytest.mark.parametrize("kernels, live_in, message", [
    ([("k", GPU, "a", "b"), ("k2", GPU, "a", "b")], "a", "single-assignment"),
    ([("k", GPU, "z", "b")], "a", "has no value"),
])
def test_bad_graphs_are_rejected_with_a_reason(kernels, live_in, message):
    with pytest.raises(GraphError, match=message):
        graph_from_names(kernels, live_in, [])
