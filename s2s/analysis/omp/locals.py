"""Map types for arrays local to a function, and write-once static tables.

A fixed-size or variable-length array declared in a function is invisible to its callers,
so no data region of theirs can hold it: each target region maps it implicitly ``tofrom``,
a copy each way per launch. Its own function shows all that happens to it, which is enough
to choose the map type of each launch exactly:

* the launch needs ``to`` unless it writes the whole array before reading any element;
* it needs ``from`` when it writes the array and the host or a later launch may read it
  afterwards (for a ``static`` array, any later call may: always ``from`` then).

A ``static`` table that kernels only read and that the host fills in one place (``if
(!have_weights) { for (...) weights[k] = ...; have_weights = 1; }``) goes to the device once:
``target enter data map(always, to: weights)`` at the end of the block that fills it keeps a
device copy for the rest of the run, which every later launch finds present. ``always``
refreshes that copy should the block run again. Nothing is done for an array whose address
leaves the function (a pointer copy, a call argument, a clause other than ``map``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.analysis.omp.ir import Access, CallEvent, Copy, FunctionIR, Node
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import same_value
from s2s.model import SourceSpan, Stmt, TranslationUnit


@dataclass(frozen=True)
class LocalMap:
    """``clause`` to append to the target directive at ``directive``."""

    function: str
    directive: SourceSpan
    clause: str
    reason: str


@dataclass(frozen=True)
class StaticEntry:
    """``target enter data map(always, to: name)`` after ``last`` (a block's last statement)."""

    function: str
    name: str
    last: Stmt
    reason: str


def local_maps(model: TranslationUnit, irs: dict[str, FunctionIR], source: bytes,
               planned: set[tuple[str, str]]) -> tuple[list[LocalMap], list[StaticEntry]]:
    """Map clauses for the function-local arrays of every target region, and the device
    entries of write-once static tables; ``planned``: (function, array) pairs a data region
    of the plan already maps."""
    maps: list[LocalMap] = []
    entries: list[StaticEntry] = []
    arrays: dict[str, list] = {}     # per function, in order (one scan: thousands of functions)
    for array in model.allocations:
        if array.kind in ("vla", "static_array"):
            arrays.setdefault(array.function, []).append(array)
    for name, ir in irs.items():
        for array in arrays.get(name, ()):
            if (name, array.name) in planned or array.element_type.rstrip().endswith("*"):
                continue  # (an array of pointers is mapped with its elements: omp.fallback)
            kernels = [n for n in ir.root.walk() if n.kind == "kernel" and
                       any(_mine(e, array.name) for e in n.events)]
            if not kernels or _escapes(ir, array.name) or _data_mapped(model, name, array.name):
                continue
            static = source[array.span.start:array.span.end].decode(
                "utf-8", "replace").lstrip().startswith("static")
            entry = _static_entry(ir, array.name, kernels) if static else None
            if entry is not None:
                entries.append(StaticEntry(name, array.name, entry,
                                           "kernels only read it and the host fills it here"))
                continue
            for kernel in kernels:
                clause = _map_type(model, ir, kernel, array, static)
                if clause is not None:
                    maps.append(LocalMap(name, model.directives[kernel.directive].span,
                                         f"map({clause}: {array.name})",
                                         f"{array.name} is local to '{name}'"))
    return maps, entries


def _mine(event, name: str) -> bool:
    return isinstance(event, Access) and event.name == name


def _escapes(ir: FunctionIR, name: str) -> bool:
    """Whether the array's address may leave the function's own statements."""
    word = re.compile(rf"(?<![\w.>]){re.escape(name)}\b")
    for node in ir.root.walk():
        for event in node.events + node.cond + node.step:
            if isinstance(event, Copy) and name in (event.source, event.target):
                return True
            if isinstance(event, CallEvent) and any(word.search(a) for a in event.args):
                return True
            if isinstance(event, Access) and event.name == name and event.side == "H" and \
                    event.ref is not None and not event.ref.subscripts:
                return True  # the bare array: passed to a library call, ...
    return False


def _data_mapped(model: TranslationUnit, function: str, name: str) -> bool:
    """Whether a directive of the function names the array in any clause other than the
    map clause of a target region (data directives, private, reduction, ...)."""
    for directive in model.directives:
        if directive.function != function:
            continue
        for clause in directive.clauses:
            if clause.name == "map" and directive.is_target_region:
                continue
            if any(norm_text(item.base) == name for item in getattr(clause, "items", ())):
                return True
        if not directive.is_target_region and any(
                norm_text(item.base) == name for c in directive.maps for item in c.items):
            return True
    return False


def _map_type(model, ir: FunctionIR, kernel: Node, array, static: bool) -> str | None:
    directive = model.directives[kernel.directive]
    if any(norm_text(item.base) == array.name for c in directive.maps for item in c.items):
        return None  # mapped by the launch itself: the author's choice
    events = [e for e in kernel.events if _mine(e, array.name)]
    count = array.count.text if array.count is not None and len(array.dims) <= 1 else None
    full = any(e.writes and e.full is not None and count is not None and
               same_value(e.full, count) for e in events)
    reads = any(e.reads for e in events)
    writes = any(e.writes for e in events)
    # ``full``: every element written before the launch reads it (omp.loops.full_writes)
    to = (reads or writes) and not full
    back = writes and (static or _read_later(ir, kernel, array.name))
    kind = {(True, True): None, (True, False): "to", (False, True): "from",
            (False, False): "alloc"}[to, back]
    return kind


def _read_later(ir: FunctionIR, kernel: Node, name: str) -> bool:
    """Whether the array may be used after the launch, on the host or by another launch
    (which gets it from the host copy, the device copy being gone): a use after it in the
    text, or anywhere in a loop around it."""
    loops = []
    parent = kernel.parent
    while parent is not None:
        if parent.kind == "loop":
            loops.append(parent)
        parent = parent.parent
    outer = loops[-1].stmt.span if loops else kernel.stmt.span
    for node in ir.root.walk():
        if node is kernel:
            continue
        for event in node.events + node.cond + node.step:
            if _mine(event, name) and event.ref is not None and \
                    (event.ref.span.start >= kernel.stmt.span.end or
                     outer.start <= event.ref.span.start < outer.end):
                return True
    return False


def _static_entry(ir: FunctionIR, name: str, kernels: list[Node]) -> Stmt | None:
    """The last statement of the innermost block holding every host write of a static
    table that kernels only read, when that block ends before the first launch and no
    loop holds both; else None."""
    if any(e.writes for k in kernels for e in k.events if _mine(e, name)):
        return None
    writes = [e.ref.span for n in ir.root.walk() for e in n.events + n.cond + n.step
              if _mine(e, name) and e.side == "H" and e.writes and e.ref is not None]
    if not writes:
        return None
    first_launch = min(k.stmt.span.start for k in kernels)
    block = None
    for stmt in ir.function.body.walk():
        if stmt.kind == "block" and stmt.children and \
                all(stmt.span.start <= w.start and w.end <= stmt.span.end for w in writes):
            block = stmt  # walk() is in source order: later blocks are nested deeper
    if block is None or block.span.end > first_launch:
        return None
    for stmt in ir.function.body.walk():
        if stmt.kind in ("for", "while", "do", "range_for") and \
                stmt.span.start <= block.span.start and stmt.span.end > first_launch:
            return None
    return block.children[-1]


def static_table_entry(model: TranslationUnit, directive, source: bytes) -> bool:
    """Whether ``directive`` is a ``target enter data`` of ``static`` arrays local to its
    function only (a write-once table, see above): no caller's storage, nothing a data
    region of the plan has to take over."""
    if directive.words[:3] != ("target", "enter", "data") or not directive.maps:
        return False
    statics = {a.name for a in model.allocations if a.function == directive.function and
               a.kind == "static_array" and source[a.span.start:a.span.end].decode(
                   "utf-8", "replace").lstrip().startswith("static")}
    return all(norm_text(item.base) in statics for c in directive.maps for item in c.items)
