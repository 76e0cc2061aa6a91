"""What keeps the front end's memory down on big files (issue 30, ``s2s inspect`` of a 1 MB CUDA
file): walk cursors without an instance dictionary, a host tree without a list per node, model
classes with slots. Each test states the property the saving rests on, so a change that brings
the per-object dictionaries back fails here rather than only in the benchmark."""

from __future__ import annotations

import dataclasses
import pickle

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.parse import ParseOptions, parse_source
from s2s.frontend.extract import extract
from s2s.frontend.host.tree import HostTree
from s2s.model import program as program_model
from s2s.model import span as span_model
from s2s.model import unit as unit_model

SOURCE = r"""
#include <cuda_runtime.h>
#define CHECK(call) do { if ((call) != cudaSuccess) return; } while (0)
__device__ float twice(float v) { return 2.0f * v; }
__global__ void scale(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = twice(x[i]) + (i > 0 ? x[i - 1] : 0.0f); }
}
struct Pair { float *a; int n; };
void run(const float *h, float *out, int n) {
    float *dx, *dy;
    Pair p = {out, n};
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, h, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < 3; ++k) {
        scale<<<(n + 255) / 256, 256>>>(dx, dy, n);
        float *t = dx; dx = dy; dy = t;
    }
    CHECK(cudaMemcpy(p.a, dx, n * sizeof(float), cudaMemcpyDeviceToHost));
    cudaFree(dx); cudaFree(dy);
}
"""


def _parsed():
    parsed = parse_source(SOURCE.encode(), "mem.cu", ParseOptions())
    assert not parsed.has_errors
    return parsed


def test_walk_cursors_hold_their_unit_without_a_dictionary():
    parsed = _parsed()
    ctx = ExtractContext("mem.cu", parsed.source, parsed.primary)
    nodes = ctx.nodes()
    inner = [node for node in nodes if node.depth]  # (top-level cursors: the bindings' own)
    assert len(inner) > 100
    for node in inner:
        cursor = node.cursor
        assert cursor._tu is parsed.primary
        assert "_tu" in type(cursor).__slots__
        assert isinstance(cursor.spelling, str)  # cached by the bindings: in a slot too
        assert not cursor.__dict__, (node.kind, cursor.__dict__)
    ctx.release()


def test_walk_makes_a_cursor_when_first_asked_and_keeps_it():
    """The walk keeps its cursors' bytes; a cursor object (about 240 bytes) is made for the
    nodes an extractor reads, once (``walk.CursorStore``): ``s2s inspect`` of the 1 MB CUDA
    file reads a third of its 431,451 cursors."""
    parsed = _parsed()
    ctx = ExtractContext("mem.cu", parsed.source, parsed.primary)
    inner = [node for node in ctx.nodes() if node.depth]
    store = inner[0].store
    assert store is not None and all(node.store is store for node in inner)
    assert len(store.made) == len(inner) and store.made.count(None) == len(inner)
    calls = [node for node in inner if node.kind == "CALL_EXPR"]
    first = calls[0].cursor
    assert calls[0].cursor is first and first.kind.name == "CALL_EXPR"
    assert len(store.made) - store.made.count(None) == 1
    assert bytes(first) == bytes(store.raw[calls[0].ref * store.width:][:store.width])
    ctx.release()


def test_children_on_demand_are_the_nodes_whose_parent_is_the_node():
    parsed = _parsed()
    ctx = ExtractContext("mem.cu", parsed.source, parsed.primary)
    tree = HostTree(ctx)
    expected: dict[int, list[int]] = {i: [] for i in range(len(tree.nodes))}
    for i, parent in enumerate(tree.parent):
        if parent >= 0:
            expected[parent].append(i)
    assert len(tree.children) == len(tree.nodes)
    for i in reversed(range(len(tree.nodes))):      # (asked in any order, and twice)
        assert tree.children[i] == expected[i]
    assert all(tree.children[i] == expected[i] for i in expected)
    ctx.release()


def _model_classes():
    """Every dataclass of ``s2s.model`` (the model's public classes)."""
    import s2s.model as package

    seen = {}
    for module in (package, span_model, unit_model, program_model):
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and \
                    value.__module__.startswith("s2s.model"):
                seen[value.__name__] = value
    for name in ("access", "cuda", "host", "host_facts", "kernel_ir", "openmp"):
        module = __import__(f"s2s.model.{name}", fromlist=["_"])
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and \
                    value.__module__ == module.__name__:
                seen[value.__name__] = value
    return seen


def test_model_classes_have_slots_except_the_two_with_cached_tables():
    classes = _model_classes()
    assert {"SourceSpan", "Expr", "Stmt", "VarUse", "Kernel", "Launch", "Var"} <= set(classes)
    with_dict = {name for name, cls in classes.items()
                 if "__slots__" not in vars(cls) and name != "Cut"}
    # cached_property needs an instance dictionary; one object each per file or program
    assert with_dict == {"TranslationUnit", "Program"}


def test_a_slotted_model_pickles_and_merges_as_before():
    parsed = _parsed()
    model, _ = extract(parsed)
    again = pickle.loads(pickle.dumps(model))          # the fact cache's form
    assert again == model
    assert again.kernel("scale") == model.kernel("scale")
    other_parsed = parse_source(SOURCE.encode(), "other.cu", ParseOptions())
    other = dataclasses.replace(extract(other_parsed)[0], functions=())
    merged = program_model.merge_units([(model, parsed.source), (other, parsed.source)])
    base = len(parsed.source) + 1
    first, second = merged.unit.launches[0], merged.unit.launches[1]
    assert first == model.launches[0]
    assert (second.span.start, second.span.end, second.span.line, second.span.file) == (
        model.launches[0].span.start + base, model.launches[0].span.end + base,
        model.launches[0].span.line, "other.cu")
    assert second.grid == dataclasses.replace(model.launches[0].grid, span=second.grid.span)
    assert model.launches[0].span.start < base          # the original is untouched
