"""Checks that keep a data-mapping plan from meaning something the program does not.

A plan names arrays by their sections: ``map(alloc: a[0:n])`` where the region opens and
``target update from(a[0:n])`` somewhere inside. Both name the same elements only while
``n`` stays the same, so arrays whose element count the region may change keep their
per-kernel mapping. A kernel pointer whose storage the analysis does not follow may be
any mapped array, which no plan can keep consistent: the caller leaves the function as
written, with the reason this module words.
"""

from __future__ import annotations

from dataclasses import replace

from s2s.analysis.omp.changes import Scope, changing_term
from s2s.analysis.omp.ir import Access, Node, called_functions
from s2s.analysis.omp.read_only_args import read_only_addresses
from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit


def drop_changing_counts(model: TranslationUnit, lengths: dict, skipped: dict,
                         nodes: list[Node], irs, vectors=()) -> None:
    """Arrays whose section uses a variable the region may change keep their per-kernel
    mapping: ``map(alloc: a[0:n])`` at the entry and ``update from(a[0:n])`` after
    ``n = n - 100`` would name different elements. A ``std::vector``'s ``v.size()`` changes
    only where its storage does (a reallocation is a pointer copy: omp.guards does not look
    at it, the pointer analysis does)."""
    scope = region_scope(nodes, irs)
    # ``step(&mesh, ...)`` to a function that only reads ``m->N``: not a change of mesh.N
    scope = replace(scope, read_only=read_only_addresses(model, scope))
    for label in sorted(lengths):
        if label in vectors:
            continue
        term = changing_term(model, lengths[label], scope)
        if term is not None:
            del lengths[label]
            skipped[label] = f"its element count uses '{term}', which may change inside the " \
                "statements the data region would span"


def region_scope(nodes: list[Node], irs) -> Scope:
    """The region's statements and every function they call: what
    :func:`s2s.analysis.omp.changes.changing_term` looks in."""
    return Scope(nodes[0].function, tuple(n.stmt.span for n in nodes if n.stmt is not None),
                 tuple(sorted(called_functions(irs, nodes))))


def offset_alias(model: TranslationUnit, function: str, nodes: list[Node], start: int,
                 device_pointers: frozenset) -> str | None:
    """Why the region cannot be planned when a pointer its kernels use was set before it to
    point into another array at an offset (``u = base + 1``) and the region also reaches
    that array by its own name, or None. The region's entry state gives such a pointer
    storage of its own (omp.solver.entry_state): a host write through ``base`` would not
    make ``u``'s device copy stale, and the kernel would read old values."""
    used = {event.name for top in nodes for node in top.walk()
            for event in node.events + node.cond + node.step if isinstance(event, Access)}
    for copy in model.pointer_copies:
        if copy.function != function or not copy.offset or copy.source is None or \
                copy.span.start >= start:
            continue
        pair = {copy.target, copy.source}
        if pair & device_pointers and pair <= used | device_pointers:
            return (f"'{copy.target}' points into '{copy.source}' at an offset "
                    f"(line {copy.span.line}) "
                    "and the region uses both: their sections count from different elements")
    return None


def unknown_storage(model: TranslationUnit, nodes: list[Node], name: str) -> str:
    """Why a pointer a kernel uses is not planned when it holds storage the analysis does not
    follow (``src = bufs[t % 2]``, a call's result, an allocation inside the region), and
    what that means when no map clause of the kernel names it."""
    why = "what it points to is not known (only pointer copies and allocations are " \
        "followed), so it may be any of the mapped arrays"
    for top in nodes:
        for node in top.walk():
            if node.kind != "kernel" or not any(
                    isinstance(e, Access) and e.name == name for e in node.events):
                continue
            chain = directive_chain(model, node.directive)
            if not any(norm_text(item.root) == name for d in chain for clause in d.maps
                       for item in clause.items):
                return why + f"; the target region at {node.stmt.span.location()} has no " \
                    "map clause for it, so it gets a zero-length section: unless that " \
                    "address is mapped already, the kernel reads host memory (on a discrete " \
                    "GPU it faults)"
    return why


def directive_chain(model: TranslationUnit, index: int) -> list:
    """The directive and the ones it is nested in on the same construct."""
    chain = [model.directives[index]]
    while chain[-1].parent is not None:
        chain.append(model.directives[chain[-1].parent])
    return chain
