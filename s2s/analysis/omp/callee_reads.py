"""Whether a kernel that passes a pointer on to functions of the program only reads it there.

The front end marks a pointer passed to a call as read *and* written unless the parameter
is a pointer to const (``ArrayRef.mode``). XSBench's device functions take plain ``double *``
parameters they never write (``calculate_macro_xs(..., double *concs, ...)``), so the safety
net mapped the member tables ``tofrom``: twice the bytes of the program's own ``map(to:)``.
:func:`written_through_calls` looks into the callee instead: its accesses through the
parameter, through pointers it copies from it (``double *grid = &egrid[k * n]``) and, a few
calls deep, through the functions it passes either on to. A callee the program does not
define (a library call), or a parameter used in a way no access records, counts as a write.
"""

from __future__ import annotations

from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit

MAX_DEPTH = 6


def written_through_calls(model: TranslationUnit, refs) -> bool:
    """Whether any of ``refs`` (accesses of one pointer in a kernel) may write its storage:
    a write of its own, or a call that may write through the parameter it binds."""
    functions = {f.name: f for f in model.functions}
    for ref in refs:
        if ref.call is not None:
            if ref.arg_index is None or _param_writes(model, functions, ref.call,
                                                      ref.arg_index, 0):
                return True
        elif ref.writes:
            return True
    return False


def _param_writes(model, functions: dict, callee: str, index: int, depth: int) -> bool:
    function = functions.get(callee)
    if function is None or function.body is None or depth > MAX_DEPTH or \
            index >= len(function.params):
        return True
    names = {function.params[index].name}
    copies = [c for c in model.pointer_copies if c.function == callee]
    if any(c.target in names for c in copies):
        return True  # the parameter is re-pointed: what it then writes is not followed
    grown = True
    while grown:
        grown = False
        for copy in copies:
            sources = {copy.source, *copy.choices} - {None}
            if sources & names and copy.target not in names:
                names.add(copy.target)
                grown = True
    for ref in model.array_refs:
        if ref.function != callee or norm_text(ref.array) not in names:
            continue
        if ref.call is not None:
            if ref.arg_index is None or _param_writes(model, functions, ref.call,
                                                      ref.arg_index, depth + 1):
                return True
        elif ref.writes:
            return True
    return False


def element_calls_as_accesses(model: TranslationUnit, refs: list) -> list:
    """``refs`` with each call that passes one element's address (``compute(c, &x[k])``)
    to a function of the program touching only ``*p`` / ``p[0]`` through that parameter
    replaced by an access of ``x[k]`` itself: ``read`` where the callee only reads it, else
    ``readwrite`` (AMD's device-routine examples). Other refs are kept as they are."""
    from dataclasses import replace

    functions = {f.name: f for f in model.functions}
    out = []
    for ref in refs:
        mode = None
        if ref.call is not None and ref.arg_index is not None and len(ref.subscripts) == 1:
            mode = _element_mode(model, functions, ref.call, ref.arg_index)
        out.append(ref if mode is None else
                   replace(ref, call=None, arg_index=None, mode=mode))
    return out


def _element_mode(model, functions: dict, callee: str, index: int) -> str | None:
    """``read`` / ``readwrite`` when ``callee`` touches its parameter ``index`` only as
    ``*p`` or ``p[0]`` (no copy, no call, no other subscript); None otherwise."""
    function = functions.get(callee)
    if function is None or function.body is None or index >= len(function.params):
        return None
    name = function.params[index].name
    if any(c.function == callee and (c.target == name or name in {c.source, *c.choices})
           for c in model.pointer_copies):
        return None
    mine = [r for r in model.array_refs if r.function == callee and norm_text(r.array) == name]
    if not mine or any(r.call is not None or
                       [s.text.strip() for s in r.subscripts] not in ([], ["0"])
                       for r in mine):
        return None
    return "readwrite" if any(r.writes for r in mine) else "read"
