"""Least values of a kernel's variables that only host code ties together (issue 28).

The safety net bounds a stencil's reads by comparing ``1`` (``U[id - stride]``) with
``stride`` (``U[id - 1]``): the hull needs ``stride >= 1``. The kernel alone cannot show it,
but the function around it often can (AMD's Jacobi, TeaLeaf)::

    int stride = mesh.Nx;
    int localNx = mesh.Nx - 2;
    #pragma omp target teams distribute parallel for collapse(2)
    for (int j = 0; j < localNy; j++)
        for (int i = 0; i < localNx; i++) { ... U[id - stride] ... }

The loop over ``i`` runs only when ``localNx >= 1``; a kernel whose loops do not run touches
nothing, so its mapping may assume they run. ``localNx`` and ``stride`` are integer locals
of the function defined once, before the construct, from the same value ``mesh.Nx`` plus a
constant, and nothing in the function assigns them or that value: so ``mesh.Nx >= 3`` and
``stride >= 3``. These floors join the kernel's own (fallback._floors).
"""

from __future__ import annotations

import math
import re

from s2s.analysis.omp.changes import assigns_any
from s2s.analysis.polynomial import NotPoly, poly
from s2s.model import Stmt, TranslationUnit

#: ``[const] int name = value;`` (one declarator, an integer type)
_DEFINITION = re.compile(r"^\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|long\s+long|"
                         r"size_t|ptrdiff_t|unsigned)\s+(?:const\s+)?([A-Za-z_]\w*)\s*=\s*"
                         r"([^;,]+);\s*$", re.S)


def with_host_floors(model: TranslationUnit, directive: int, floors: dict[str, int],
                     text) -> dict[str, int]:
    """``floors`` (variable -> least value the kernel's loops need) raised through the
    definitions of the module doc; ``floors`` itself when there are none."""
    body = _function_body(model, directive)
    if body is None or not floors:
        return floors
    start, owner = model.directives[directive].span.start, model.directives[directive].function
    defined: dict[str, tuple[str, int]] = {}
    for stmt in body.walk():
        if stmt.kind != "decl" or stmt.span.start >= start:
            continue
        found = _DEFINITION.match(text(stmt))
        if found is None:
            continue
        name, value = found.groups()
        try:
            p = poly(value.strip())
        except NotPoly:
            continue
        atoms = [key for key in p if key]
        if len(atoms) != 1 or len(atoms[0]) != 1 or p[atoms[0]] != 1:
            continue
        root = atoms[0][0]
        if name in defined or assigns_any(model, owner, (name,), outside=(stmt.span,)) or \
                assigns_any(model, owner, (root,)):
            continue
        defined[name] = (root, p.get((), 0))
    roots: dict[str, int] = {}
    for name, (root, constant) in defined.items():
        if name in floors:
            roots[root] = max(roots.get(root, -math.inf), floors[name] - constant)
    if not roots:
        return floors
    out = dict(floors)
    for name, (root, constant) in defined.items():
        if root in roots:
            out[name] = max(out.get(name, 0), roots[root] + constant)
    return out


def _function_body(model: TranslationUnit, directive: int) -> Stmt | None:
    found = model.directives[directive]
    for function in model.functions:
        if function.name == found.function and function.body is not None and \
                function.span.file == found.span.file and \
                function.span.start <= found.span.start < function.span.end:
            return function.body
    return None
