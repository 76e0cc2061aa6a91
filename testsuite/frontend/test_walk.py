"""The main-file walk (s2s.frontend.core.walk): one libclang traversal that must keep exactly the
cursors, order, depths and template/function context of the plain recursive walk over the
bindings (``get_children`` + ``in_main_file``), on code with macros, templates, lambdas, a
file included inside a function body, and on every OpenMP sample."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2s.frontend.core import walk
from s2s.frontend.core.context import FUNCTION_KINDS, TEMPLATE_KINDS, ExtractContext
from s2s.frontend.core.parse import parse_file
from s2s.frontend.core.toolchain import configure_libclang

REPO = Path(__file__).resolve().parents[2]

TRICKY = r"""
#include <stdlib.h>
#include "local.h"
#define SQUARE(x) ((x) * (x))
#define LOOP(i, n) for (int i = 0; i < (n); ++i)
#define RESET(p) (p)[0] = 0
template <class T> struct Box {
    T value;
    T get() const { return SQUARE(value); }
    template <class U> U as() const { return static_cast<U>(value); }
};
template <class V> V twice(V v) { return v + v; }
static int helper(int *a, int n) {
    int s = 0;
    LOOP(i, n) { s += SQUARE(a[i]); }
    auto f = [&](int k) { return a[k] + s; };
    RESET(a);
#include "body.inc"
    return f(0) + LOCAL_VALUE;
}
int main() {
    int *a = (int *)malloc(10 * sizeof(int));
    Box<int> b{3};
    return helper(a, 10) + b.get() + b.as<long>() + twice(2);
}
"""


def _reference(ctx: ExtractContext) -> list[tuple]:
    """The walk as the bindings give it, one recursive get_children per cursor."""
    out: list[tuple] = []

    def visit(cursor, depth, template, function):
        kind = cursor.kind.name
        if kind in TEMPLATE_KINDS and template is None:
            template = cursor.spelling
        if kind in FUNCTION_KINDS and cursor.is_definition():
            function = cursor.spelling
        out.append((cursor, kind, depth, template, function))
        for child in cursor.get_children():
            if ctx.in_main_file(child):
                visit(child, depth + 1, template, function)

    for top in ctx.top_level:
        if top.kind.name not in ("MACRO_INSTANTIATION", "MACRO_DEFINITION", "INCLUSION_DIRECTIVE"):
            visit(top, 0, None, None)
    return out


def _same_walk(path: Path) -> int:
    parsed = parse_file(str(path))
    assert not parsed.has_errors, [d.message for d in parsed.diagnostics if d.is_error]
    ctx = ExtractContext(str(path), parsed.source, parsed.primary)
    got, want = ctx.nodes(), _reference(ctx)
    lib = configure_libclang().conf.lib
    assert [(n.kind, n.depth, n.template, n.function) for n in got] == \
        [(k, d, t, f) for _c, k, d, t, f in want]
    # the very cursors (semantic_parent of a statement reads its bytes), not just equal ones
    assert [bytes(n.cursor) for n in got] == [bytes(w[0]) for w in want]
    assert all(lib.clang_equalCursors(n.cursor, w[0]) for n, w in zip(got, want, strict=True))
    return len(got)


def test_walk_equals_the_bindings_walk_on_macros_templates_and_included_bodies(tmp_path):
    (tmp_path / "local.h").write_text("#define LOCAL_VALUE 7\n")
    (tmp_path / "body.inc").write_text("    s += helper_value(s);\n")
    source = tmp_path / "tricky.cpp"
    source.write_text("static int helper_value(int v) { return v; }\n" + TRICKY)
    count = _same_walk(source)
    assert count > 100


@pytest.mark.parametrize("sample", sorted(p.name for p in (REPO / "samples" / "openmp").iterdir()
                                          if (p / "sample.toml").is_file()))
def test_walk_equals_the_bindings_walk_on_openmp_samples(sample):
    directory = REPO / "samples" / "openmp" / sample
    for source in sorted(directory.glob("*.c*")):
        _same_walk(source)


def test_main_file_range_encodes_offsets(tmp_path):
    source = tmp_path / "x.c"
    source.write_text("int f(int a) {\n    return a + 1;\n}\n")
    parsed = parse_file(str(source))
    ctx = ExtractContext(str(source), parsed.source, parsed.primary)
    lo, hi = walk.main_file_range(ctx)
    assert hi - lo == len(parsed.source)
    for node in ctx.nodes():
        location = node.cursor.location
        assert location.int_data - lo == location.offset


def test_an_error_in_the_walk_is_raised_not_printed(tmp_path, monkeypatch):
    source = tmp_path / "x.c"
    source.write_text("int f(int a) { return a + 1; }\n")
    parsed = parse_file(str(source))
    ctx = ExtractContext(str(source), parsed.source, parsed.primary)

    def broken(location, path):
        raise ValueError("broken on purpose")

    monkeypatch.setattr(walk, "main_file_range", lambda _ctx: None)   # every location asks
    monkeypatch.setattr(walk, "file_is", broken)
    monkeypatch.setattr(ctx, "_is_main", lambda _location: False)
    with pytest.raises(ValueError, match="broken on purpose"):
        ctx.nodes()


# --- omp28i: miniBUDE's main.cpp. A ``[&]`` lambda in a class template's constructor reads
# a member (an implicit capture of ``this``: libclang visits the ``this`` under a parent
# the walk never entered), and ``devices.template emplace_back(...)`` (an error by default
# in the bundled libclang, accepted by clang-16): the file failed with an internal
# IndexError, then with the clang error.
MINIBUDE_SHAPES = r"""
#include <numeric>
#include <vector>
template <typename N> struct Stats {
    N mean, variance;
    explicit Stats(const std::vector<N> &ys) {
        mean = std::accumulate(ys.begin(), ys.end(), N(0)) / ys.size();
        variance = std::accumulate(ys.begin(), ys.end(), N(0),
                                   [&](auto acc, auto t) { return acc + (t - mean) * (t - mean); });
    }
};
template <typename T> std::vector<T> devices() {
    std::vector<T> out;
    out.template emplace_back(T(1));
    return out;
}
int main() {
    std::vector<double> ys(8, 1.0);
    Stats<double> s(ys);
    double *a = ys.data();
    #pragma omp target teams distribute parallel for map(tofrom: a[0:8])
    for (int i = 0; i < 8; i++) a[i] += s.mean;
    return (int)devices<double>().size() + (int)a[0];
}
"""


def test_a_lambda_capturing_this_in_a_template_and_template_keyword_calls(load_source):
    loaded = load_source(MINIBUDE_SHAPES, name="bude.cpp")
    assert loaded.model is not None and len(loaded.model.directives) == 1
    assert not [d for d in loaded.diagnostics if d.is_error]


def _naive_links(depths: list[int]) -> tuple[list[int], list[int]]:
    """Parent: the last earlier node one level up; end: the first later node not deeper."""
    parent = [next((j for j in range(i - 1, -1, -1) if depths[j] < d), -1)
              for i, d in enumerate(depths)]
    end = [next((j for j in range(i + 1, len(depths)) if depths[j] <= d), len(depths))
           for i, d in enumerate(depths)]
    return parent, end


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3), max_size=60))
def test_subtree_links_are_the_parents_and_ends_of_a_preorder_walk(steps):
    depths, depth = [], 0      # a pre-order walk: each node at most one level below the last
    for step in steps:
        depth = min(depth + 1, max(0, depth - step + 1)) if depths else 0
        depths.append(depth)
    nodes = [walk.Node(None, "X", d, None, None) for d in depths]
    assert tuple(walk.subtree_links(nodes)) == _naive_links(depths)


def test_host_tree_and_cuda_unit_share_the_contexts_subtree_links(tmp_path):
    """Both read the subtree ends of every node (431,000 on the 1 MB CUDA file): worked out
    once per context, and the CUDA unit's function ends are those of a scan of its items."""
    from s2s.frontend.cuda.unit import unit_of
    from s2s.frontend.host.tree import host_tree

    (tmp_path / "local.h").write_text("#define LOCAL_VALUE 7\n")
    (tmp_path / "body.inc").write_text("    s += helper_value(s);\n")
    source = tmp_path / "tricky.cpp"
    source.write_text("static int helper_value(int v) { return v; }\n" + TRICKY)
    parsed = parse_file(str(source))
    ctx = ExtractContext(str(source), parsed.source, parsed.primary)
    links = ctx.subtree_links()
    tree, unit = host_tree(ctx), unit_of(ctx)
    assert tree.end is links.end and tree.parent is links.parent
    assert (tree.parent, tree.end) == _naive_links([n.depth for n in ctx.nodes()])
    _, item_ends = _naive_links(unit.depths)
    assert [f.end for f in unit.functions] == [item_ends[f.index] for f in unit.functions]
    assert len(unit.functions) >= 6
