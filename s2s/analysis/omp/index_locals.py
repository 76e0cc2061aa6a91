"""Subscripts spelled through integer locals of the kernel, read as their definitions.

Real kernels name their index first (AMD's Jacobi, TeaLeaf): ``const int id = (i + 1) +
(j + 1) * stride; const int id_l = id - 1; AU[id] = ... U[id_l] ...``, often through a
macro (``size_t c = IDX(i, j, ny);``). The safety net bounds a subscript over the counting
loops around it (omp.loops.write_extent), which sees ``id`` as an unknown: "the subscript
'id' is not bounded". :func:`expanded_ref` gives the access with each such local replaced
by its value, a few levels deep, where that is the value at the access. All from the AST's
mentions of the function (:class:`s2s.model.host_facts.VarUse`), never the text:

* the local, of integer type, is declared once in the kernel (not in a loop's header), with
  an initializer that :mod:`s2s.frontend.host.integral` renders (integer variables and
  literals, ``+ - * / %``; casts between integer types taken off, macros expanded), and
  nothing else in the kernel assigns it, steps it or takes its address;
* every variable of its value is either never written in the kernel (assigned, stepped,
  address taken) outside the headers of the loops around the declaration (a counter does
  not change while the declaration's scope runs), or another such local that stands.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import replace

from s2s.analysis.omp.loops import LOOP_KINDS
from s2s.analysis.polynomial import expand
from s2s.model import Expr, Stmt
from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES
from s2s.model.span import SpanIndex


def expanded_ref(kernel: Stmt, ref, uses):
    """``ref`` with its subscripts' kernel-local index names replaced by their definitions
    (module doc; ``uses``: the function's variable mentions); ``ref`` itself when none
    applies."""
    definitions = index_locals(kernel, uses)
    if not definitions or not ref.subscripts:
        return ref
    subscripts = tuple(Expr(expand(s.text, definitions), s.span) for s in ref.subscripts)
    if all(new.text == old.text for new, old in zip(subscripts, ref.subscripts, strict=True)):
        return ref
    return replace(ref, subscripts=subscripts)


#: recently asked mention lists' span indexes (a kernel's refs each ask: one scan of a long
#: function's mentions per ref was quadratic), each kept with its list (ids are reused), least
#: recently asked dropped first: the plan comes back to a callee at every call site, and
#: clearing the whole table once a program had more than its size of functions made the work
#: of a main calling n offload functions quadratic (test_linear_work)
_INDEXES: OrderedDict[int, tuple] = OrderedDict()
_KEPT = 1024


def mentions_inside(uses: tuple, span) -> list:
    """The mentions of ``uses`` (a function's ``VarUse`` tuple) whose spans ``span``
    contains, in order, by a bisect on an index built once per tuple."""
    return _indexed(uses)[1].inside(span)


def _indexed(uses: tuple) -> tuple:
    """(``uses``, its span index, its kernels' index locals by span)."""
    got = _INDEXES.get(id(uses))
    if got is None or got[0] is not uses:
        got = _INDEXES[id(uses)] = (uses, SpanIndex(uses), {})
        if len(_INDEXES) > _KEPT:
            _INDEXES.popitem(last=False)
    _INDEXES.move_to_end(id(uses))
    return got


def index_locals(kernel: Stmt | None, uses) -> dict[str, str]:
    """name -> value of the integer locals of ``kernel`` (a statement: a target region's
    loop nest, or a loop body) that may stand for it (module doc); once per kernel."""
    if kernel is None or not uses:
        return {}
    span = kernel.span
    known = _indexed(uses)[2]
    key = (span.file, span.start, span.end)
    if key not in known:
        known[key] = _index_locals(kernel, uses)
    return known[key]


def _index_locals(kernel: Stmt, uses) -> dict[str, str]:
    span = kernel.span
    inside = mentions_inside(uses, span)
    if not inside:
        return {}
    loops = [(loop.span.start, loop.body.span.start, loop.body.span.end)
             for loop in kernel.walk() if loop.kind in LOOP_KINDS and loop.body is not None]
    headers = [(a, b) for a, b, _ in loops]
    declared = Counter(u.name for u in inside if u.role in DECLARING_ROLES)
    found = {u.name: u for u in inside if u.role == "init" and declared[u.name] == 1 and
             not any(a <= u.span.start < b for a, b in headers)}
    written = [u for u in inside if u.role in CHANGING_ROLES]
    out, used = {}, {}
    for name, definition in found.items():
        if definition.integral is None or not definition.integer or definition.pointer or \
                any(w.name == name for w in written):
            continue
        value = definition.value.span
        at = definition.span.start
        around = [(a, b) for a, b, end in loops if b <= at < end]
        names = [u for u in inside if value.start <= u.span.start < value.end]
        if all(u.name in found or not any(
                w.decl == u.decl and w.name == u.name and
                not any(a <= w.span.start < b for a, b in around) for w in written)
               for u in names):
            out[name] = definition.integral
            used[name] = {u.name for u in names}
    # a local defined through another (``id_l = id - 1``) stands only if that one does
    return {name: value for name, value in out.items()
            if all(n in out or n not in found for n in used[name])}

