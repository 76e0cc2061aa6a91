"""The exact set of elements a loop nest writes, for reads that name the same set later
(issue 28, 3i: copies cut to the range the kernels touch).

A Jacobi sweep writes the interior of ``next``, ``next[j][i]`` over ``1 <= j < ny - 1`` and
``1 <= i < NX - 1``, and the next kernel reads ``next[j][i]`` over the same nest. The
elements read are exactly the elements written, so the host's copy of ``next`` is never
read on the device and the entry copy can be ``map(alloc:)``. The interval cover of
:mod:`s2s.analysis.omp.cover` cannot say so: the interior of a 2-D grid is no contiguous
range of elements. :func:`nest_pattern` names such a set by its nest and subscripts:

* the kernel is a perfect nest of counting loops (``for (i = a; i < b; i++)``, ``<=`` too,
  unit steps; the directive's worksharing runs every iteration), and the access sits in
  the innermost body, inside no other loop;
* the pattern is the nest's bounds and the access's subscripts, the counters renamed by
  depth (``s2s_l0``, ``s2s_l1``) and each piece a canonical polynomial, so two kernels
  spelling the same nest with other counter names give the same pattern;
* for a write (``must``), every access of the array in the kernel has those subscripts
  and every path through the innermost body writes before it reads
  (:func:`s2s.analysis.omp.loops.writes_first`): each element of the set is written;
* no variable of the pattern is declared, assigned, stepped or has its address taken in the
  kernel (the AST's mentions, ``VarUse``).

The coverage dataflow translates the pattern into the root function's names and keeps it,
as a must-fact like the interval cover, under :func:`nest_key`.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.index_locals import expanded_ref
from s2s.analysis.omp.loops import LOOP_KINDS, counting_loop, writes_first
from s2s.analysis.omp.state import NEST
from s2s.analysis.polynomial import NotPoly, expand, poly, render
from s2s.model import ArrayRef, Stmt, TranslationUnit
from s2s.model.host_facts import VALUE_ROLES

#: placeholders for the nest's counters, outermost first
COUNTER = "s2s_l{}"
COUNTER_NAME = re.compile(r"s2s_l\d+")
_WORD = re.compile(r"(?<![\w.>])[A-Za-z_]\w*\b")


def nest_key(label: str) -> str:
    """The ``State.cover`` entry holding ``label``'s nest patterns (beside its sections)."""
    return label + NEST


def is_nest_key(key: str) -> bool:
    return key.endswith(NEST)


def nest_pattern(kernel: Stmt, ref: ArrayRef, refs: list[ArrayRef], text,
                 must: bool, assigned: frozenset[str], uses: tuple = ()) -> str | None:
    """The pattern of the elements ``ref`` touches over ``kernel``'s nest, in the kernel's
    names (module doc); with ``must``, only when the kernel surely writes every one of
    them. None when there is no such pattern. ``uses``: the function's variable mentions
    (its index locals, omp.index_locals)."""
    nest, body = _nest(kernel, text)
    if not nest or body is None or not ref.subscripts or \
            not (body.span.start <= ref.span.start < body.span.end) or \
            any(s.kind in LOOP_KINDS and s.span.start <= ref.span.start < s.span.end
                for s in body.walk()):
        return None
    counters = {var: COUNTER.format(depth) for depth, (var, *_rest) in enumerate(nest)}
    pieces = [piece for _var, first, op, bound in nest
              for piece in (first, bound if op == "<" else f"({bound}) + 1")]
    subscripts = _subscripts(kernel, ref, uses)
    if must:
        mine = [r for r in refs if r.array == ref.array]
        if any(_subscripts(kernel, r, uses) != subscripts for r in mine) or \
                not all(body.span.start <= r.span.start < body.span.end for r in mine) or \
                not writes_first(body, mine, text):
            return None
    names = {w for piece in pieces + subscripts for w in _WORD.findall(piece)}
    if (names - set(counters)) & assigned:
        return None
    try:
        bounds = [render(poly(_renamed(p, counters))) for p in pieces]
        indices = [render(poly(_renamed(s, counters))) for s in subscripts]
    except NotPoly:
        return None
    return f"{' ; '.join(bounds)} | {' ; '.join(indices)}"


def _subscripts(kernel: Stmt, ref: ArrayRef, uses) -> list[str]:
    """``ref``'s subscripts with the kernel's index locals read as their definitions
    (omp.index_locals: ``AU[id]`` with ``const int id = (i + 1) + (j + 1) * stride``)."""
    return [s.text for s in expanded_ref(kernel, ref, uses).subscripts]


def bind_pattern(pieces: list[str], function, args: list[str], assigned: frozenset[str],
                 definitions: dict[str, str], variables: frozenset) -> list[str] | None:
    """A callee's pattern pieces in its caller's names: the callee's integer locals never
    assigned again read as their definitions (``stride`` -> ``mesh->Nx``), a scalar
    parameter as its argument, ``p->f`` of a pointer parameter as ``x.f`` for the argument
    ``&x`` (``q->f`` for ``q``). None when a piece uses another variable of the program, a
    parameter the callee assigns, or a pointer parameter any other way."""
    params = {p.name: (p, a.strip()) for p, a in zip(function.params, args, strict=False)
              if p.name}
    out = []
    for piece in pieces:
        failed = []

        def bind(match, failed=failed) -> str:
            name, member = match.group(1), match.group(2)
            if name not in params:
                if name in variables and not COUNTER_NAME.fullmatch(name):
                    failed.append(name)
                return match.group(0)
            param, arg = params[name]
            if name in assigned:
                failed.append(name)
            elif not param.is_pointer and not member:
                return f"({arg})"
            elif param.is_pointer and member and member.startswith("->"):
                target = re.fullmatch(r"&\s*([A-Za-z_]\w*)", arg)
                if target is not None:
                    return f"{target.group(1)}.{member[2:].strip()}"
                if re.fullmatch(r"[A-Za-z_]\w*", arg):
                    return f"{arg}{member}"
            failed.append(name)
            return match.group(0)

        bound = _PATH.sub(bind, expand(piece, definitions))
        if failed:
            return None
        out.append(bound)
    return out


def assigned_names(model: TranslationUnit, function: str, within=None) -> frozenset[str]:
    """The variables a mention in ``function`` (inside the span ``within``, if given)
    declares, assigns, steps or takes the address of (``VarUse``, from the AST)."""
    return frozenset(u.name for u in model.in_function("var_uses", function)
                     if (u.role in VALUE_ROLES or u.role == "declare") and
                     (within is None or within.file == u.span.file and
                      within.start <= u.span.start < within.end))


#: a name and the member it reaches, if any (``mesh->Nx``: ``mesh``, ``->Nx``)
_PATH = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\b(\s*(?:->|\.)\s*[A-Za-z_]\w*)?(?!\s*\()")


def _renamed(text: str, counters: dict[str, str]) -> str:
    return _WORD.sub(lambda m: counters.get(m.group(0), m.group(0)), text)


def _nest(stmt: Stmt, text) -> tuple[list[tuple[str, str, str, str]], Stmt | None]:
    """The perfectly nested counting loops starting at ``stmt``, outermost first, and the
    innermost body."""
    nest, body = [], stmt
    while body is not None:
        loop = counting_loop(body)
        if loop is None:
            break
        nest.append(loop)
        body = body.body
        while body is not None and body.kind == "block" and len(body.children) == 1 and \
                body.children[0].kind == "for":
            body = body.children[0]
    return nest, body
