"""Host loops whose body copies, as regions of their own (issue 19, item 2).

A top-level loop (``for``, ``while``, ``do``) of a transfer region whose body makes
``cudaMemcpy`` or ``cudaMemset`` calls on region buffers is planned twice:

* **its body** is a straight-line region of its own (:func:`body_region`): the body's
  statements classified as the function's are, every buffer holding a value on entry and live
  out on its own side at the end of the body (so every iteration ends with each buffer holding
  what the program's iteration leaves there, and the next one starts from the same state).
  Its copies fuse among themselves; a fused copy spans pool slots by offset, so it uses the
  slot order of the function's plan (``host_plan.plan_host_code``'s ``fixed``) and joins only
  operands that are neighbours there.
* **for the function**, the loop is a barrier: two operations (:func:`barrier_ops`), host
  code reading and writing the host buffers the body reads and writes (its host code, the
  host side of its copies), then a kernel reading and writing the device buffers (its
  launches and fills, the device side of its copies). Like a launch-only loop
  (:mod:`host_loops`) it must hold for any number of iterations: a buffer written in the
  body is also read when it held a value before the loop. No transfer may fall between the
  two operations (that point is inside the loop): :func:`clip_barriers` moves every window
  that contains it to before the loop, or after it when the value comes into being there.
  The buffers the body copies between pair into operands for the function too (``pairs`` of
  ``build_region_graph``), so they get slots in both pools.

Refused (``transfers-control-flow``): a branch (only loops run their body as a region),
``break``/``continue``/``goto`` ending an iteration early, allocations and frees in the body, nested loops or branches with copies, pointer
assignments of region buffers in the body, and region buffers in the loop's header.
"""

from __future__ import annotations

import dataclasses

from s2s.analysis.transfers.graph import Direction, KernelVectorGraph
from s2s.analysis.transfers.region import (
    HOST,
    Buffer,
    Copy,
    HostCode,
    Launch,
    Op,
    RegionGraph,
    build_region_graph,
)
from s2s.diagnostics import UnsupportedConstruct
from s2s.model import Stmt

LOOPS = ("for", "while", "do")
#: roles a statement of a loop body may not have (the pools are made and freed outside)
OUTSIDE_ONLY = ("device-alloc", "device-free", "host-alloc", "host-free")


@dataclasses.dataclass(frozen=True)
class LoopBody:
    """A loop whose body copies: its statement index in the function's region, the body's
    statements with roles and their operations, and the outer operations standing for it."""

    index: int
    stmt: Stmt
    statements: tuple
    ops: tuple[Op, ...]
    #: index in the function's ops of the loop's first barrier operation
    first_op: int = 0

    @property
    def name(self) -> str:
        return f"loop at line {self.stmt.span.line}"


def body_statements(extractor, stmt: Stmt) -> tuple[Stmt, ...]:
    """The top-level statements of a loop's body; a refusal for a branch, or a header that
    mentions a region buffer."""
    if stmt.kind not in LOOPS or stmt.body is None:
        extractor.refuse_loop(f"CUDA memory calls in a '{stmt.kind}' statement (only loops with a "
                              "straight-line body are planned on their own)", stmt.span)
    body = stmt.body
    for use in extractor.index.var_uses.inside(stmt.span):
        if use.name in extractor.space and not body.span.contains(use.span):
            extractor.refuse_loop(f"'{use.name}' is used in the header of a loop that copies", use.span)
    statements = body.children if body.kind == "block" else (body,)
    for child in statements:
        jump = _leaves_iteration(child)
        if jump is not None:
            extractor.refuse_loop(f"'{jump.kind}' ends an iteration of a loop that copies early: a copy "
                                  "the plan moves past it would not run", jump.span)
    return statements


def _leaves_iteration(stmt: Stmt, in_loop: bool = False, in_switch: bool = False) -> Stmt | None:
    """A ``break``, ``continue`` or ``goto`` in ``stmt`` that ends the loop body's iteration
    early (a ``break`` of a nested loop or switch, a ``continue`` of a nested loop do not).
    ``return`` is let through as in straight-line regions: the error exits of checking macros
    leave the function, whose buffers are its own."""
    if stmt.kind == "goto" or stmt.kind == "break" and not (in_loop or in_switch) or \
            stmt.kind == "continue" and not in_loop:
        return stmt
    in_loop = in_loop or stmt.kind in (*LOOPS, "range_for")
    in_switch = in_switch or stmt.kind == "switch"
    for part in (*stmt.children, stmt.init, stmt.body, stmt.orelse):
        found = _leaves_iteration(part, in_loop, in_switch) if part is not None else None
        if found is not None:
            return found
    return None


def read_loop_body(extractor, index: int, stmt: Stmt, calls, launches) -> LoopBody:
    """Classify the body with a copy of ``extractor`` that sees every buffer as holding a
    value on entry (the body runs many times) and allocates none."""
    inner = dataclasses.replace(
        extractor, local=set(), alloc_at={}, free_at={}, has_value=set(extractor.has_value),
        host_alloc_at={}, allocation_spans={}, changed=None, pool_start=None, unfused={}, bodies=None,
        hoisted={})
    statements, ops = inner.statements_of(body_statements(extractor, stmt), calls, launches)
    for entry in statements:
        if entry.role in OUTSIDE_ONLY:
            extractor.refuse_loop(f"'{entry.stmt.span.text(extractor.source).strip()}' allocates or frees "
                                  "a region buffer inside a loop", entry.stmt.span)
    if inner.unfused:
        name = sorted(inner.unfused)[0]
        extractor.refuse_loop(f"'{name}' is rotated inside a loop that copies", stmt.span)
    return LoopBody(index, stmt, tuple(statements), tuple(ops))


def barrier_ops(body: LoopBody, space: dict[str, str], before: set[str]) -> list[Op]:
    """The host and the device operation standing for the loop in the function's region
    (see the module docstring); ``before``: the buffers holding a value at the loop."""
    sides = {HOST: ({}, {}), "device": ({}, {})}
    for op in body.ops:
        if isinstance(op, Copy):
            reads, writes = (op.src,), (op.dst,)
        elif isinstance(op, (Launch, HostCode)):
            reads, writes = op.reads, op.writes
        else:
            continue
        for name in reads:
            sides[space[name]][0][name] = None
        for name in writes:
            sides[space[name]][1][name] = None
    result: list[Op] = []
    for side, make in ((HOST, HostCode), ("device", Launch)):
        read, written = sides[side]
        reads = tuple(n for n in dict.fromkeys([*read, *written]) if n in before)
        if reads or written:
            label = f"{body.name} ({'host' if side == HOST else 'device'} side)"
            result.append(make(label, reads, tuple(written), body.stmt.span))
    return result


def clip_barriers(region_graph: RegionGraph, statements) -> RegionGraph:
    """The graph with no transfer window containing a point inside a statement of several
    operations (a loop that copies; a copy of ``d[i]``, ``host_args``): each such window ends
    before the statement when it starts before it, else starts after it."""
    graph = region_graph.graph
    kernel_of = {op: k for k, op in enumerate(region_graph.op_of_kernel)}
    inside = [kernel_of[k] for s in statements if s.op is not None and s.last_op != s.op
              for k in range(s.op + 1, s.last_op + 1) if k in kernel_of]   # (an Alloc is no kernel)
    if not inside:
        return region_graph
    vectors = list(graph.vectors)
    for window in graph.windows:
        lo, hi = window.earliest, window.latest
        for point in sorted(inside):
            if lo <= point <= hi:
                lo, hi = (lo, point - 1) if lo < point else (point + 1, hi)
        if lo > hi:
            raise UnsupportedConstruct(f"'{vectors[window.vector].name}' would have to move inside a loop",
                                       None, "transfers-control-flow")
        if (lo, hi) == (window.earliest, window.latest):
            continue
        vector = vectors[window.vector]
        if window.direction is Direction.UP:
            vectors[window.vector] = dataclasses.replace(vector, upload_from=lo, upload_by=hi)
        else:
            vectors[window.vector] = dataclasses.replace(vector, download_from=lo, download_by=hi)
    clipped = KernelVectorGraph(tuple(vectors), graph.kernels)
    return dataclasses.replace(region_graph, graph=clipped)


def body_region(extractor, body: LoopBody, host_pooled: frozenset[str], device_pooled: frozenset[str],
                rotated_before: set[str]):
    """The body's :class:`~s2s.analysis.transfers.host_code.HostRegion`: no buffer allocated
    in it, every one live out; buffers a loop before rotated never fuse (``unfused`` -1)."""
    from s2s.analysis.transfers.host_code import HostRegion  # host_code imports this module

    space = extractor.space
    pooled = host_pooled | device_pooled
    buffers = [Buffer(name, space[name], 1, False, name in pooled) for name in space]
    graph = clip_barriers(build_region_graph(buffers, body.ops, shared_device=True), body.statements)
    return HostRegion(extractor.function.name, body.statements, tuple(buffers), dict(extractor.sizes),
                      body.ops, graph, host_pooled, device_pooled, {}, {}, {},
                      {name: -1 for name in rotated_before}, body_of=body.name)
