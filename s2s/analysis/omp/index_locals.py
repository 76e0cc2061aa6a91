"""Subscripts spelled through integer locals of the kernel, read as their definitions.

Real kernels name their index first (AMD's Jacobi, TeaLeaf): ``const int id = (i + 1) +
(j + 1) * stride; const int id_l = id - 1; AU[id] = ... U[id_l] ...``. The safety net bounds
a subscript over the counting loops around it (omp.loops.write_extent), which sees ``id`` as
an unknown: "the subscript 'id' is not bounded". :func:`expanded_ref` gives the access with
each such local replaced by its initializer, a few levels deep, where that is the value at
the access:

* the local is declared once in the kernel, with one declarator and an initializer, and
  nothing else in the kernel assigns it, increments it or takes its address;
* every name of its initializer is either not assigned in the kernel at all, or the counter
  of a loop around the declaration (assigned only in that loop's header: the counter does
  not change while the declaration's scope runs).
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.analysis.omp.loops import LOOP_KINDS
from s2s.analysis.polynomial import assigned_in, expand
from s2s.model import Expr, Stmt

_DECLARATION = re.compile(r"^\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|long\s+long|"
                          r"size_t|ptrdiff_t|unsigned|std::size_t|std::ptrdiff_t)\s+"
                          r"(?:const\s+)?([A-Za-z_]\w*)\s*=\s*([^;,{}]+);\s*$", re.S)
_NAME = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")


def expanded_ref(kernel: Stmt, ref, text):
    """``ref`` with its subscripts' kernel-local index names replaced by their definitions
    (module doc); ``ref`` itself when none applies."""
    definitions = index_locals(kernel, text)
    if not definitions or not ref.subscripts:
        return ref
    subscripts = tuple(Expr(expand(s.text, definitions), s.span) for s in ref.subscripts)
    if all(new.text == old.text for new, old in zip(subscripts, ref.subscripts, strict=True)):
        return ref
    return replace(ref, subscripts=subscripts)


def index_locals(kernel: Stmt, text) -> dict[str, str]:
    """name -> initializer of the kernel's integer locals that may stand for it."""
    whole = text(kernel)
    loops = [s for s in kernel.walk() if s.kind in LOOP_KINDS]
    counters = {id(loop.init) for loop in loops if loop.init is not None}
    found: dict[str, list[tuple[Stmt, str]]] = {}
    for stmt in kernel.walk():
        if stmt.kind == "decl" and id(stmt) not in counters and \
                (match := _DECLARATION.match(text(stmt))):
            found.setdefault(match.group(1), []).append((stmt, match.group(2).strip()))
    out = {}
    for name, places in found.items():
        if len(places) != 1:
            continue
        stmt, value = places[0]
        if assigned_in(name, whole.replace(text(stmt), "", 1)):
            continue
        around = [loop for loop in loops if loop.body is not None and
                  loop.body.span.start <= stmt.span.start < loop.body.span.end]
        headers = [text(loop)[:loop.body.span.start - loop.span.start] for loop in around]
        rest = whole
        for header in headers:
            rest = rest.replace(header, "", 1)
        if all(not assigned_in(used, rest, declarations=False) for used in _NAME.findall(value)
               if used not in found or used == name):
            out[name] = value
    # a local defined through another (``id_l = id - 1``) stands only if that one does
    return {name: value for name, value in out.items()
            if all(used in out or used not in found for used in _NAME.findall(value))}
