"""Whether every variable a planned data region's clauses name is in scope where they go.

A region's clauses are written in its function's names: counts translated from callees
(``section_from_callees``, the callee maps), member paths, definitions expanded. A name that
slipped through untranslated would be another function's variable: a compile error where
the function has no such name (the compile check drops the group), or, worse, the wrong
variable where it has one of the same spelling. Checked here from the AST before the
region is emitted: each variable the clauses name must be

* a parameter of the function,
* a local it declares before the region, in a statement that holds the region,
* a data member of its class or of a class it derives from (:attr:`HostFunction.fields`),
* or a global.

Every function is asked about. Mentions (``VarUse``) are kept for the functions the analyses
ask about, which include every caller of another file's function
(``frontend.walk_extract.var_use_functions``): where a region lands in a function without
them, its locals are not known, and only parameters, members and globals count as in scope
(a refusal, never a name let through). An identifier that
is no variable anywhere in the program (a macro, a type, an enum
constant, ``sizeof``) and a member name after ``.``/``->`` are not asked about. A region
naming any other variable is refused: its constructs get the safety net's clauses.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from functools import lru_cache

from s2s.model.host_facts import DECLARING_ROLES

_IDENT = re.compile(r"(?<![\w.>$])(?<!->)[A-Za-z_]\w*")
_SCOPES = frozenset({"block", "for", "range_for", "while", "do", "if", "switch"})


#: the words of the directives s2s writes (a program's variable may be spelled so too)
_OMP_WORDS = frozenset({"pragma", "omp", "target", "data", "enter", "exit", "update", "map",
                        "to", "from", "tofrom", "alloc", "release", "delete", "always",
                        "present", "close", "teams", "distribute", "parallel", "for",
                        "simd", "collapse", "reduction", "nowait", "depend", "in", "out",
                        "inout", "if", "device", "firstprivate", "private", "shared"})


def out_of_scope_edit(model, edits) -> tuple[str, object] | None:
    """(variable, edit) of the first edit among ``edits`` whose new text names a variable
    not in scope where it goes (module doc: in the function holding the edit, at its
    offset), or None. Edits outside every function (a global's entry) are not asked."""
    variables = model.cached("omp.scope.variables", lambda: _program_variables(model))
    for edit in edits:
        if not edit.text:
            continue
        function = function_at(model, edit.path, edit.offset)
        if function is None:
            continue
        visible = _visible(model, function, edit.offset)
        for name in _IDENT.findall(edit.text):
            if name in variables and name not in visible and name not in _OMP_WORDS:
                return name, edit
    return None


def function_at(model, path: str, offset: int):
    """The first function of ``model.functions`` with a body whose span holds ``offset`` in
    ``path`` (the same file, however spelled). Looked up in a per-unit index (a scan of every
    function for each edit made this check quadratic: 860 edits by 1,434 functions took about
    a second on the 50,000-line program)."""
    index = model.cached("omp.scope.function_index", lambda: _function_index(model))
    starts, ends, reach, order = index.get(_real(path), ((), (), (), ()))
    found = None
    at = bisect_right(starts, offset)
    # ``reach[i]``: the largest end among the first i+1 spans (by start), so no span before
    # the first i whose reach ends at or before ``offset`` can hold it
    while at > 0 and reach[at - 1] > offset:
        at -= 1
        if ends[at] > offset and (found is None or order[at] < found):
            found = order[at]
    return None if found is None else model.functions[found]


def _function_index(model) -> dict[str, tuple[list, list, list, list]]:
    """Per real path: the spans of the functions with a body sorted by start, as (starts,
    ends, running maximum of the ends, index in ``model.functions``)."""
    by_file: dict[str, list[tuple[int, int, int]]] = {}
    for number, function in enumerate(model.functions):
        if function.body is not None:
            span = function.span
            by_file.setdefault(_real(span.file), []).append((span.start, span.end, number))
    index = {}
    for real, spans in by_file.items():
        spans.sort()
        reach, top = [], -1
        for _start, end, _number in spans:
            top = max(top, end)
            reach.append(top)
        index[real] = ([s[0] for s in spans], [s[1] for s in spans], reach,
                       [s[2] for s in spans])
    return index


@lru_cache(maxsize=4096)
def _real(path: str) -> str:
    return os.path.realpath(path)


def _program_variables(model) -> frozenset[str]:
    """Every variable the program declares: locals, parameters, globals, data members."""
    names = {u.name for u in model.var_uses if u.role in DECLARING_ROLES or not u.local}
    for function in model.functions:
        names.update(p.name for p in function.params if p.name)
        names.update(function.fields)
    return frozenset(names)


def _visible(model, function, at: int) -> frozenset[str]:
    """The variables ``function`` can name at offset ``at``."""
    uses = model.in_function("var_uses", function.name)
    names = {p.name for p in function.params if p.name} | set(function.fields)
    names |= model.cached("omp.scope.globals",
                          lambda: frozenset(u.name for u in model.var_uses if not u.local))
    scopes = model.cached(("omp.scope.scopes", function.name, function.span.start),
                          lambda: [s.span for s in function.body.walk() if s.kind in _SCOPES])
    for use in uses:
        if use.role not in DECLARING_ROLES or use.span.start >= at:
            continue
        if use.span.file != function.body.span.file:
            names.add(use.name)     # (a declaration through a macro of another file)
            continue
        holders = [s for s in scopes if s.file == use.span.file and
                   s.start <= use.span.start < s.end]
        innermost = min(holders, key=lambda s: s.end - s.start, default=None)
        if innermost is None or innermost.start <= at < innermost.end:
            names.add(use.name)
    return frozenset(names)
