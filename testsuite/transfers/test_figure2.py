"""The paper's running example (Figure 2, Figure 3 and the two listings of section 4)."""

from __future__ import annotations

import pytest

from s2s.analysis.transfers import METHODS, POLICIES, affinity_graph, optimize, optimum
from s2s.analysis.transfers.check import plan_problems
from s2s.analysis.transfers.listing import render_plan, render_windows
from s2s.analysis.transfers.workloads import figure2

# The greedy listing of section 4, verbatim.
PAPER_GREEDY = """\
before 0: upload B from location 0
before 0: upload A from location 1
before 0: upload C from location 2
Kernel0 ( R(B), R(A), W(D), W(E) )
after 0: download E to location 4
after 0: download D to location 5
Kernel1 ( R(E), R(B), W(F), W(G) )
before 2: upload F from location 3
Kernel2 ( R(C), R(F), W(H), W(I) )
Kernel3 ( R(F), R(H), W(J), W(K) )
Kernel4 ( R(H), R(E), W(L), W(M) )
after 4: download I to location 6
after 4: download J to location 7
after 4: download K to location 8
after 4: download L to location 9
after 4: download M to location 10
"""


def names(graph, vectors):
    return [graph.name(v) for v in vectors]


def test_windows_match_the_papers_diagnostic_output():
    rows = [line.split("\t") for line in render_windows(figure2()).splitlines()]
    uploads = [left.split() for left, _ in rows]
    downloads = [right.split() for _, right in rows]
    assert [r[1:] for r in uploads] == [["A", "B", "C"], [".", ".", "C"], [".", ".", "C", "F"], [], []]
    assert [[c for c in r[1:] if c != "."] for r in downloads] == [
        ["D", "E"], ["D"], ["D", "I"], ["D", "I", "J", "K"], ["D", "I", "J", "K", "L", "M"]]


def test_affinity_graph_has_the_four_components_of_figure3():
    graph = figure2()
    affinity = affinity_graph(graph)
    components = {frozenset(names(graph, c)) for c in affinity.components}
    assert components == {frozenset("ABCF"), frozenset("DEIJKLM"), frozenset("G"), frozenset("H")}
    # siblings get the bonus: C-F (both read by kernel 2) beats A-C (only overlapping)
    weight = lambda a, b: affinity.weight(graph.index(a), graph.index(b))  # noqa: E731
    assert weight("C", "F") > weight("A", "C") > 0
    assert weight("F", "G") == 0  # siblings without overlapping windows: no edge


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("policy", POLICIES)
def test_every_method_saves_seven_startups(method, policy):
    plan = optimize(figure2(), method, policy)
    assert (plan.baseline, plan.startups, plan.saved) == (11, 4, 7)
    assert plan_problems(plan) == []


def test_matching_greedy_listing_is_the_papers_listing():
    text = render_plan(optimize(figure2(), "matching", "greedy"), summary=False)
    assert text == PAPER_GREEDY


def test_tight_uploads_c_late_with_f_and_keeps_d_with_e():
    graph = figure2()
    plan = optimize(graph, "matching", "tight")
    messages = [(t.direction.value, t.point, names(graph, t.vectors)) for t in plan.transfers]
    assert messages == [("upload", 0, ["B", "A"]), ("download", 1, ["E", "D"]),
                        ("upload", 2, ["C", "F"]), ("download", 5, ["I", "J", "K", "L", "M"])]
    greedy = optimize(graph, "matching", "greedy")
    assert plan.residency.volume < greedy.residency.volume


def test_optimum_is_seven_and_certified():
    result = optimum(figure2())
    assert result.saved == 7 and result.certified
