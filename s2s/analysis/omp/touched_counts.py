"""A pointer's element count read off the ranges its kernels touch (issue 28: idempotence).

A pointer whose storage has no count the plan can read (``double *v = g.val;`` before ``g``
is rewritten) used to be mapped per construct by the safety net: ``map(to: v[0:n])``, the
range the kernel touches. A second run then read that clause as the count (omp.sizes
takes the program's own map clauses as counts) and mapped ``v[0:n]`` once around the
kernels: the first run's output was not its own fixed point. The first run now takes the
same count where it is as safe as a clause a careful human would write around the kernels:

* every device use of the storage is in the function itself, by the storage's own name
  (a callee's kernel would need its range in the caller's names);
* every target construct of the region that uses it runs whenever the region's statements
  run (only loops and blocks around it, no branch: a kernel under ``if (n <= cap)`` says
  nothing about the storage when the branch is not taken);
* each construct's range is bounded (omp.fallback) and starts at 0, and the ranges have a
  hull (their bounds differ by constants): that hull's length is the count;
* the pointer is not re-pointed inside the region.

Kernels touch only what lies inside their ranges, so a data region mapping the hull holds
every element the device reads or writes; the host's elements outside it are never copied.
"""

from __future__ import annotations

from s2s.analysis.omp.fallback import construct_maps
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import hull, same_value
from s2s.model import TranslationUnit

#: statements a construct may sit in and still run whenever the region's statements do
_ALWAYS_RUN = frozenset({"block", "for", "while", "do", "range_for"})


def touched_count(model: TranslationUnit, source: bytes, function, label: str, uses,
                  start: int, end: int) -> str | None:
    """``[0:len]``: the hull of what the target constructs of ``function`` between ``start``
    and ``end`` touch of ``label`` (module doc), or None where that is no safe count.
    ``uses``: the survey's device uses of ``label`` (function, local name, ...)."""
    if not uses or any(use[0] != function.name or use[1] != label for use in uses):
        return None
    if any(c.function == function.name and start <= c.span.start < end and
           norm_text(c.target) == label for c in model.pointer_copies):
        return None
    sections = []
    for index, directive in enumerate(model.directives):
        if not directive.is_target_region or directive.function != function.name or \
                not start <= directive.span.start < end:
            continue
        if not any(r.directive == index and norm_text(r.array) == label
                   for r in model.array_refs):
            continue
        if not _always_runs(function.body, directive.stmt_span):
            return None
        found, unbounded = construct_maps(model, source, index, (label,))
        items = [item for _type, item in found.items] if found is not None else []
        if unbounded is not None or len(items) != 1 or not items[0].startswith(label + "["):
            return None
        sections.append(items[0][len(label):])
    whole = hull(sections) if sections else None
    if whole is None:
        return None
    lower, length = whole[1:-1].split(":", 1)
    return f"[0:{length}]" if same_value(lower, "0") else None


def _always_runs(body, span) -> bool:
    """Whether the statement at ``span`` sits in ``body`` inside loops and blocks only."""
    if body is None or span is None:
        return False
    for stmt in body.walk():
        if stmt.span.file == span.file and stmt.span.start < span.start < stmt.span.end and \
                stmt.kind not in _ALWAYS_RUN:
            return False
    return True
