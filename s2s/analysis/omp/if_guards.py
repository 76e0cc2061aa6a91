"""Target constructs with an ``if`` clause inside a planned data region (TeaLeaf's halos).

``#pragma omp target ... if(is_offload)`` runs its kernel on the host when the condition is
false, on the host copies: inside a data region that keeps the arrays on the device, which
copy is fresh afterwards would depend on a run-time value. TeaLeaf's halo and pack kernels
take such a flag, and the program-wide plan used to refuse every root that reaches one.

The plan keeps the device copy the fresh one either way by guarding the construct with two
updates that run only when the construct runs on the host:

    #pragma omp target update if(!(C)) from(<what the kernel touches>)
    #pragma omp target teams ... if(C)
    for (...) ...
    #pragma omp target update if(!(C)) to(<what the kernel may write>)

so on the host the kernel sees the device's values, and the device gets what it wrote; the
plan then treats the construct as any kernel (device copy fresh after it). The ranges are
the safety net's (omp.fallback.construct_maps: the hull of each subscript over the kernel's
loops); the ``from`` update covers the written ranges too, since the ``to`` update pushes
whole ranges back and an element the kernel skipped must not go back stale. A range not
present on the device makes an update a no-op, so the guards are right whatever the
region maps.

Accepted only where the condition is a plain name, possibly negated, that no clause of the
construct maps, reduces or copies back (it reads no call and writes nothing, and the kernel
cannot change the host's value: it is the same before and after), and every pointer the kernel subscripts is a plain name whose
range the safety net bounds; otherwise the root stays refused with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.analysis.omp.fallback import construct_maps
from s2s.analysis.omp.guards import directive_chain
from s2s.analysis.omp.place import insertion_span
from s2s.analysis.omp.state import norm_text
from s2s.model import SourceSpan, Stmt, TranslationUnit

_CONDITION = re.compile(r"!?\s*([A-Za-z_]\w*)")
_PLAIN = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class IfGuard:
    """The two guarding updates of one construct with an ``if`` clause (module doc)."""

    kernel: Stmt            # the construct's statement: ``push`` goes after it
    at: SourceSpan          # its pragma: ``fetch`` goes before it
    condition: str
    fetch: tuple[str, ...]  # items: ``buffer[lo:len]``
    push: tuple[str, ...]


def if_guard(model: TranslationUnit, source: bytes, kernel: Stmt) -> IfGuard | str:
    """The guards of the construct whose statement is ``kernel``, or why there are none."""
    chain = directive_chain(model, kernel.directive)
    clauses = [c for d in chain for c in d.clause("if")]
    if len(clauses) != 1 or clauses[0].argument is None:
        return "its if clause is not one plain condition"
    condition = norm_text(clauses[0].argument.text)
    plain = _CONDITION.fullmatch(condition)
    if not plain:
        return f"its condition '{condition}' is not a plain name"
    if any(norm_text(item.base) == plain.group(1) for d in chain for clause in d.clauses
           for item in clause.items):
        return f"a clause of the construct names its condition '{plain.group(1)}'"
    if any(d.span.macro is not None for d in chain):
        return "it is written through a macro"
    index = kernel.directive
    pointers = sorted({norm_text(r.array) for r in model.array_refs if r.directive == index})
    if not all(_PLAIN.fullmatch(p) for p in pointers):
        return "its kernel reaches arrays through members or subscripted pointers"
    if not pointers:
        return "its kernel subscripts no array"
    found, unbounded = construct_maps(model, source, index, tuple(pointers))
    if unbounded is not None or found is None:
        return unbounded.reason if unbounded is not None else "its ranges are not known"
    items = tuple(item for _, item in found.items)
    written = tuple(item for map_type, item in found.items if map_type != "to")
    return IfGuard(kernel, insertion_span(kernel, model), condition, items, written)
