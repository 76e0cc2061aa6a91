"""Facts about counting loops: their ranges, and what a kernel's loop nest writes.

A target region over ``for (i = 0; i < n; i++)`` that assigns ``a[i]`` on every path
overwrites ``a[0:n]`` (the array needs no copy in); one that writes ``a[i]`` for ``1 <= i <
n-1`` leaves ``a[0]`` and ``a[n-1]`` as they were (the host may read them without a copy).
These are read off the statement trees and index polynomials, conservatively: anything the
recognizers do not understand counts as "may read" / "writes everything".
"""

from __future__ import annotations

import re

from s2s.analysis.omp.changes import assigns_any
from s2s.analysis.polynomial import (
    NotPoly,
    Poly,
    add,
    assigned_in,
    mul,
    poly,
    render,
    scale,
    substitute,
)
from s2s.model import ArrayRef, Stmt

LOOP_KINDS = ("for", "while", "do", "range_for")
JUMP_KINDS = ("break", "continue", "return", "goto")

def counting_loop(stmt: Stmt, stride: bool = False
                  ) -> tuple[str, str, str, str] | tuple[str, str, str, str, int] | None:
    """(counter, first value, ``<`` or ``<=``, bound) of ``for (i = a; i < b; i++)`` (also
    ``++i``, ``i += 1``, ``<=``); None for any other loop. With ``stride``, loops stepping
    by a constant ``i += c`` count too, and the step is a fifth element. The header is the
    front end's reading of the AST (``Stmt.header``)."""
    header = stmt.header if stmt is not None and stmt.kind == "for" else None
    if header is None:
        return None
    if stride:
        return header.counter, header.first, header.op, header.bound, header.step
    return (header.counter, header.first, header.op, header.bound) if header.step == 1 else None


def loop_range(stmt: Stmt) -> tuple[str, Poly, Poly] | None:
    """(counter, first value, last value) of a counting ``for`` loop (constant strides too:
    the last value is then ``first + step * ((last - first) / step)``)."""
    found = counting_loop(stmt, stride=True)
    if found is None:
        return None
    var, first_text, op, bound_text, step = found
    try:
        first, bound = poly(first_text), poly(bound_text)
    except NotPoly:
        return None
    last = bound if op == "<=" else add(bound, {(): -1})
    if step != 1:
        span = render(add(last, scale(first, -1)))
        last = add(first, {(f"(({span}) / {step})",): step})
    return var, first, last


def full_writes(stmt: Stmt, refs: list[ArrayRef], text, indices: dict[str, str]
                ) -> dict[str, str]:
    """Arrays that a nest of counting loops ``for (i = 0; i < E; i++)`` overwrites
    completely before reading them: every access has one subscript that numbers the nest's
    iterations in mixed radix (``a[i]``, ``out[j * rows + i]`` over ``i < rows, j < cols``),
    and every path through the body writes it first. ``indices``: the nest's index locals
    (omp.index_locals: ``size_t c = IDX(i, j, ny);`` then ``un[c]``). Returns name ->
    element count."""
    nest, body = _counting_nest(stmt)
    if not nest:
        return {}
    by_name: dict[str, list[ArrayRef]] = {}
    for ref in refs:
        by_name.setdefault(ref.array, []).append(ref)
    out = {}
    for name, group in by_name.items():
        counts = {_radix_count(_defined(r.subscripts[0].text, indices), nest)
                  if len(r.subscripts) == 1 else None for r in group}
        if len(counts) != 1 or None in counts:
            continue
        if _writes_first(body, group, text) == _WRITES:
            out[name] = counts.pop()
    return out


def _defined(index: str, definitions: dict[str, str]) -> str:
    """``r * col + c`` for the index ``idx`` defined so, else ``index``."""
    return definitions.get(index.strip(), index)


def _counting_nest(stmt: Stmt) -> tuple[list[tuple[str, str]], Stmt | None]:
    """The perfectly nested counting loops from 0 (``<``) starting at ``stmt`` as
    (counter, bound) pairs, outermost first, and the innermost body."""
    nest, body = [], stmt
    while body is not None:
        loop = counting_loop(body)
        if loop is None or loop[1].strip() != "0" or loop[2] != "<":
            break
        nest.append((loop[0], loop[3]))
        body = body.body
        while body is not None and body.kind == "block" and len(body.children) == 1 and \
                body.children[0].kind == "for":
            body = body.children[0]
    return nest, body


def _radix_count(index: str, nest: list[tuple[str, str]]) -> str | None:
    """``E`` when ``index`` takes every value of ``[0, E)`` exactly once over the nest:
    ``c1*v1 + ... + ck*vk`` with the counters ordered so that ``c1 = 1`` and
    ``c(k+1) = ck * bound(vk)``; the bounds may not use the counters."""
    try:
        value = poly(index)
        bounds = {var: poly(bound) for var, bound in nest}
    except NotPoly:
        return None
    counters = set(bounds)
    if any(var in key for bound in bounds.values() for key in bound for var in counters):
        return None
    coefficient: dict[str, Poly] = {}
    for key, factor in value.items():
        used = [atom for atom in key if atom in counters]
        if len(used) != 1 or key.count(used[0]) != 1:
            return None
        rest = list(key)
        rest.remove(used[0])
        coefficient.setdefault(used[0], {})
        coefficient[used[0]] = add(coefficient[used[0]], {tuple(rest): factor})
    if set(coefficient) != counters:
        return None
    radix: Poly = {(): 1}
    remaining = dict(coefficient)
    while remaining:
        step = [var for var, c in remaining.items() if c == radix]
        if len(step) != 1:
            return None
        radix = mul(radix, bounds[step[0]])
        del remaining[step[0]]
    return render(radix)


_WRITES, _READS, _NEITHER = "writes", "reads", "neither"
_SHORT_CIRCUIT = re.compile(r"\?|&&|\|\|")


def _writes_first(stmt: Stmt, refs: list[ArrayRef], text) -> str:
    """Whether every path through ``stmt`` writes the array (all of whose ``refs`` are
    ``a[i]``) before it reads it: ``if (edge) a[i] = 0; else a[i] = f(b);`` overwrites ``a[i]``
    as surely as a plain assignment. ``_READS`` also stands for "cannot tell" (a jump, a
    nested loop that reads, a write under ``?:``/``&&``) and stops the search."""
    inside = [r for r in refs if stmt.span.start <= r.span.start < stmt.span.end]
    if stmt.kind in JUMP_KINDS:
        return _READS  # the rest of the body may not run
    if not inside:
        return _READS if any(s.kind in JUMP_KINDS for s in stmt.walk()) else _NEITHER
    if stmt.kind == "block":
        for child in stmt.children:
            status = _writes_first(child, inside, text)
            if status != _NEITHER:
                return status
        return _NEITHER
    if stmt.kind == "if":
        if stmt.cond is not None and any(inside_span(r.span, stmt.cond.span) for r in inside):
            return _READS
        branches = [_writes_first(part, inside, text) if part is not None else _NEITHER
                    for part in (stmt.body, stmt.orelse)]
        if _READS in branches:
            return _READS
        return _WRITES if branches == [_WRITES, _WRITES] else _NEITHER
    if stmt.kind in ("expr", "decl"):
        # ``a[i] = f(a[i])`` reads before it writes although the write comes first.
        if any(r.reads for r in inside):
            return _READS
        # ``c ? (a[i] = x) : y`` writes only sometimes; ``a[i] = c ? x : y`` always.
        head = text(stmt)[:inside[0].span.start - stmt.span.start]
        return _READS if _SHORT_CIRCUIT.search(head) else _WRITES
    return _READS if any(r.reads for r in inside) else _NEITHER


def writes_first(stmt: Stmt, refs: list[ArrayRef], text) -> bool:
    """Whether every path through ``stmt`` writes the array of ``refs`` (all with the same
    subscripts) before reading it (:func:`_writes_first`)."""
    return _writes_first(stmt, refs, text) == _WRITES


def write_extent(kernel: Stmt, ref: ArrayRef, text, model=None) -> str | None:
    """``[lo:len]`` holding every element a kernel's write ``a[f(i, j)]`` may touch: ``f``
    affine in the counters of the counting loops around it (non-negative coefficients), its
    other variables not assigned in the kernel. Elements outside it keep their host value,
    which is what lets the host read boundary elements an interior-only kernel never
    writes without a copy."""
    if len(ref.subscripts) != 1:
        return None
    try:
        low = high = poly(ref.subscripts[0].text)
    except NotPoly:
        return None
    loops = [s for s in kernel.walk() if s.kind in LOOP_KINDS and
             s.span.start <= ref.span.start < s.span.end]
    counters = set()
    for loop in reversed(loops):  # innermost first: inner bounds may use outer counters
        bounds = loop_range(loop)
        if bounds is None:
            return None
        var, first, last = bounds
        counters.add(var)
        low, ok_low = substitute(low, var, first)
        high, ok_high = substitute(high, var, last)
        if not (ok_low and ok_high):
            return None
    names = {v for key in list(low) + list(high) for atom in key
             for v in re.findall(r"[A-Za-z_]\w*", atom)}
    if names & counters or _assigned(names, kernel, ref, text, model):
        return None
    return f"[{render(low)}:{render(add(add(high, scale(low, -1)), {(): 1}))}]"


def _assigned(names, kernel: Stmt, ref: ArrayRef, text, model) -> bool:
    """Whether the kernel may assign or declare one of ``names``: from the AST's mentions
    (omp.changes.assigns_any) given the ``model``, else from its text."""
    if model is not None:
        return assigns_any(model, ref.function, names, [kernel.span])
    body = text(kernel)
    return any(assigned_in(v, body) for v in names)


def must_write_extent(kernel: Stmt, ref: ArrayRef, refs: list[ArrayRef], text,
                      model=None) -> str | None:
    """``[lo:len]`` of the elements a kernel surely writes through ``ref``: the kernel is a
    counting loop ``for (i = a; i < b; i++)`` whose every iteration writes ``x[i + c]`` on
    every path (``_writes_first`` over the array's writes: no jump, no write under
    ``?:``/``&&``, no read-modify-write), every write of the array in the kernel has that
    subscript, and ``a``, ``b``, ``c`` are not assigned in it. A worksharing loop runs all
    its iterations, so each element of ``[a + c, b + c)`` is written (an empty range when
    ``b <= a``: the length is then not positive). Unlike :func:`write_extent`, which bounds
    what a write MAY touch, this is what it MUST touch: elements the host never sent that a
    later kernel reads inside it hold the device's own values."""
    loop = counting_loop(kernel)
    if loop is None or len(ref.subscripts) != 1 or kernel.body is None:
        return None
    var, first_text, op, bound_text = loop
    writes = [r for r in refs if r.array == ref.array and r.writes]
    try:
        first, bound = poly(first_text), poly(bound_text)
        indices = [poly(r.subscripts[0].text) if len(r.subscripts) == 1 else None
                   for r in writes]
    except NotPoly:
        return None
    index = indices[0] if indices else None
    if index is None or any(i != index for i in indices) or index.get((var,)) != 1:
        return None
    offset = add(index, {(var,): -1})
    names = {v for p in (offset, first, bound) for key in p for atom in key
             for v in re.findall(r"[A-Za-z_]\w*", atom)}
    if var in names or _assigned(names, kernel, ref, text, model):
        return None
    if _writes_first(kernel.body, writes, text) != _WRITES:
        return None
    last = bound if op == "<=" else add(bound, {(): -1})
    length = add(add(last, scale(first, -1)), {(): 1})
    return f"[{render(add(first, offset))}:{render(length)}]"


def inside_span(span, within) -> bool:
    """Whether ``span`` starts inside ``within`` (None: anywhere)."""
    return within is None or within.start <= span.start < within.end
