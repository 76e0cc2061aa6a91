"""The safety net: a mapping per target construct where the program-wide plan gave up.

Where the plan of a function is refused (``goto``, an ``if`` clause, a callee's own data
directives, an element count it cannot know, pointers declared or swapped next to the
kernels ...), its target constructs would keep implicit zero-length pointer mappings:
right on clang's host device, a host address dereferenced on a GPU. Correct comes before
optimal, so each such construct gets map clauses of its own for the range its kernel
touches: the hull of every subscript of the pointer over the counting loops of the kernel
(:func:`s2s.analysis.omp.loops.write_extent`, which bounds reads as well as writes), mapped

* ``to`` when the kernel only reads it,
* ``from`` when it only writes it and surely writes every element of the hull (a worksharing
  loop writing ``p[i]`` on every path, :func:`~s2s.analysis.omp.loops.must_write_extent`):
  an element of the section it skipped would come back with the device's garbage,
* ``tofrom`` otherwise (any doubt).

The clause is what a careful human writes per construct, and it is right whatever the data
regions around it: a range already present (a hand-written ``target data`` mapping the array
the pointer aliases) is not copied again, an absent one is copied in and back at the
construct. Only a construct whose range cannot be bounded (a pointer passed to a call in the
kernel or copied there, a subscript through a variable the kernel sets, a multi-dimensional
access, a construct inside a macro) keeps an unmapped pointer, with the reason.

A struct member (``SD.concs``, ``P->x``) is mapped the same way where the kernel's loops bound
it, else over its whole storage with the count its allocations give (omp.member_counts), and
the other members the kernel reads go ``to`` with it: a construct that maps a member section
maps the struct member by member. A struct with a member pointer that cannot be mapped is
left whole. A pointer to a struct whose scalar members alone the kernel uses (``g->h``) maps
the one struct it points to, ``to`` or ``tofrom`` as the kernel writes a member.

Inside a template the clauses go into the template's one text (there is no other): they
name only variables of the pattern (the pointer, the counters' bounds), which each
instantiation evaluates with its own types and values, so the same clause is right for
every instantiation the program has. That holds while the mapped name is a pointer in every
instantiation: a name whose pattern type is not written as a pointer (``P a`` with a
template parameter ``P``) is left, with the reason. A specialisation has a text of its own,
planned on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from s2s.analysis.omp.callee_reads import element_calls_as_accesses, written_through_calls
from s2s.analysis.omp.guarded_index import guarded_extent
from s2s.analysis.omp.guards import directive_chain
from s2s.analysis.omp.hidden_uses import pointer_base
from s2s.analysis.omp.host_floors import with_host_floors
from s2s.analysis.omp.index_locals import expanded_ref
from s2s.analysis.omp.loops import loop_range, must_write_extent, write_extent
from s2s.analysis.omp.macro_constructs import written_through_macro
from s2s.analysis.omp.member_agree import agreed_count
from s2s.analysis.omp.member_counts import MEMBER, companion_members, member_count
from s2s.analysis.omp.pointer_arrays import element_clauses, is_array_of_pointers
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import NotPoly, add, hull, mul, poly, render, scale, within
from s2s.model import SourceSpan, Stmt, TranslationUnit

_PLAIN = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class ConstructMap:
    """Map clauses added to one target construct (``directive`` indexes the model's)."""

    directive: int
    span: SourceSpan
    clauses: tuple[str, ...]
    #: (map type, ``p[lo:len]``) per item of ``clauses``
    items: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Unbounded:
    """Pointers of a construct whose touched range the safety net cannot bound, and why."""

    directive: int
    pointers: tuple[str, ...]
    reason: str


def construct_maps(model: TranslationUnit, source: bytes, directive: int,
                   pointers: tuple[str, ...]) -> tuple[ConstructMap | None, Unbounded | None]:
    """Clauses mapping ``pointers`` on the target construct ``directive`` (module doc), and
    the pointers among them it cannot map."""
    span = model.directives[directive].span
    if span.macro is not None and not written_through_macro(model.directives[directive]):
        return None, Unbounded(directive, pointers,
                               f"the construct is inside macro '{span.macro}'")
    kernel = _kernel_stmt(model, directive)
    if kernel is None:
        return None, Unbounded(directive, pointers, "its associated statement is not known")

    def text(node) -> str:
        return source[node.span.start:node.span.end].decode("utf-8", "replace")

    refs = [r for r in model.array_refs if r.directive == directive]
    # ``const double *e = &a[k * n];`` in the kernel: what it touches through ``e`` is no
    # access of ``a``'s own, so ``a``'s subscripts do not bound its range
    copied = {norm_text(c.source): c.target for c in model.pointer_copies
              if c.source and c.span.file == kernel.span.file and
              kernel.span.start <= c.span.start < kernel.span.end}
    clauses, left, why = [], [], ""
    floors = with_host_floors(model, directive, _floors(kernel, text), text)
    declared = _declared_inside(model, model.directives[directive].function, kernel)
    function = model.directives[directive].function
    uses = model.in_function("var_uses", function) if function else ()
    for pointer in pointers:
        mine = [r for r in refs if norm_text(r.array) == norm_text(pointer)]
        behind = [] if mine else [r for r in refs if pointer_base(norm_text(r.array)) ==
                                  norm_text(pointer)]
        deeper = [r.array for r in behind
                  if "->" in norm_text(r.array)[len(norm_text(pointer)) + 2:]]
        if behind and not deeper:
            # ``g->h``: the struct ``g`` points to, whole (omp.hidden_uses.struct_pointers)
            clauses.append(("tofrom" if any(r.writes for r in behind) else "to",
                            f"{pointer}[0:1]"))
            continue
        if deeper:
            left.append(pointer)
            why = why or f"'{deeper[0]}' is reached through a pointer member of '{pointer}'"
            continue
        if span.template is not None and not all(r.pointer for r in mine):
            found = f"'{pointer}' is not declared a pointer in template '{span.template}'"
        elif is_array_of_pointers(model, model.directives[directive].function, pointer):
            found = element_clauses(model, source, model.directives[directive].function,
                                    pointer, mine)
            if isinstance(found, list):
                clauses += found
                continue
        elif _PLAIN.fullmatch(pointer):
            found = _clause(kernel, element_calls_as_accesses(model, mine), refs, pointer,
                            text, copied, declared, floors, uses, model=model)
        else:
            found = _member_clause(model, source, kernel, mine, refs, pointer, text, copied,
                                   declared, floors, uses)
        if isinstance(found, tuple):
            clauses.append(found)
        else:
            left.append(pointer)
            why = why or found
    named = {norm_text(item.base) for d in directive_chain(model, directive)
             for clause in d.clauses for item in clause.items}
    clauses, why = _with_companions(model, directive, kernel, clauses, left, why, named)
    by_type: dict[str, list[str]] = {}
    for map_type, item in clauses:
        by_type.setdefault(map_type, []).append(item)
    texts = tuple(f"map({t}: {', '.join(by_type[t])})" for t in ("to", "tofrom", "from")
                  if t in by_type)
    return (ConstructMap(directive, span, texts, tuple(clauses)) if texts else None,
            Unbounded(directive, tuple(left), why) if left else None)


def _clause(kernel: Stmt, mine: list, refs: list, pointer: str, text,
            copied: dict[str, str], declared: frozenset[str] | None,
            floors: dict[str, int] | None = None, uses: tuple = (), model=None
            ) -> tuple[str, str] | str:
    """(map type, ``p[lo:len]``) for one pointer of the construct, or why it has none.
    ``declared``: the variables the kernel declares (:func:`_declared_inside`); ``uses``:
    the function's variable mentions (its index locals, omp.index_locals)."""
    if not mine:
        return f"no access to '{pointer}' was found in the construct"
    if norm_text(pointer) in copied:
        return f"'{pointer}' is copied to '{copied[norm_text(pointer)]}' in the kernel"
    extents = []
    for ref in mine:
        if ref.rows and ref.call is None and len(ref.subscripts) > 1:
            # ``in[i][j]`` through ``double (*in)[n]``: the rows ``i`` touches (the model doc)
            ref = replace(ref, subscripts=ref.subscripts[:1])
        if ref.call is not None or len(ref.subscripts) != 1:
            return (f"'{pointer}' is passed to '{ref.call}' in the kernel" if ref.call else
                    f"'{pointer}' is accessed with {len(ref.subscripts)} subscripts")
        # ``AU[id]`` with ``const int id = (i + 1) + (j + 1) * stride;`` in the kernel
        extent = write_extent(kernel, expanded_ref(kernel, ref, uses), text, model) or \
            guarded_extent(kernel, ref, uses)
        if extent is None or declared is None or declared & set(_PLAIN.findall(extent)):
            return (f"the subscript '{ref.subscripts[0].text}' of '{pointer}' is not bounded "
                    "by the kernel's counting loops")
        extents.append(extent)
    touched = hull(extents) or _nonnegative_hull(
        extents, _floors(kernel, text) if floors is None else floors)
    if touched is None:
        return f"the accesses to '{pointer}' have no common bounds"
    item = f"{pointer}{touched}"
    if not any(r.writes for r in mine):
        return "to", item
    if not any(r.reads for r in mine) and any(
            (must := must_write_extent(kernel, r, refs, text, model)) is not None and
            within(touched, must) for r in mine if r.writes):
        return "from", item
    return "tofrom", item


def _with_companions(model: TranslationUnit, directive: int, kernel: Stmt, clauses: list,
                     left: list, why: str, named: set[str] = frozenset()
                     ) -> tuple[list, str]:
    """``clauses`` and ``map(to: s.k)`` for every other member ``s.k`` the kernel uses of a
    struct whose member sections they map (omp.member_counts.companion_members); where the
    kernel writes one, that struct's member clauses are taken back (its pointers left).
    A member the construct's own clauses name already (``named``: ``m.u`` of its
    ``map(to: m.u[0:n])``, ``m.nnode``) is no companion: a second clause for it would map
    a member pointer as a scalar (the host address over the attached device one) or name
    a scalar twice."""
    roots: dict[tuple[str, str], set[str]] = {}
    for _map_type, item in clauses:
        path = MEMBER.match(item)
        if path is not None and not _PLAIN.fullmatch(item.split("[", 1)[0]):
            roots.setdefault((path.group(1), path.group(2)), set()).add(path.group(3))
    for name in named:
        path = MEMBER.fullmatch(name)
        if path is not None and (path.group(1), path.group(2)) in roots:
            roots[path.group(1), path.group(2)].add(path.group(3))
    out = list(clauses)
    unmapped = {(m.group(1), m.group(2)) for name in left if (m := MEMBER.fullmatch(name))}
    for (root, sep), mapped in roots.items():
        # a struct whose member pointers are not all mapped is left whole: mapping some
        # members maps the struct, and the others would reach the kernel as garbage
        # instead of host addresses (wrong on a GPU either way, but broken on the host too)
        found = companion_members(model, model.directives[directive].function, kernel.span,
                                  root, sep, mapped) \
            if (root, sep) not in unmapped else \
            f"other member pointers of '{root}' cannot be mapped"
        if isinstance(found, str):
            taken = [c for c in out if c[1].startswith(f"{root}{sep}")]
            out = [c for c in out if c not in taken]
            left += [c[1].split("[", 1)[0] for c in taken]
            why = why or found
        else:
            out += [("to", member) for member in found]
    return out, why


def _member_clause(model: TranslationUnit, source: bytes, kernel: Stmt, mine: list,
                   refs: list, pointer: str, text, copied: dict[str, str],
                   declared: frozenset[str] | None, floors: dict[str, int] | None = None,
                   uses: tuple = ()) -> tuple[str, str] | str:
    """(map type, ``s.m[lo:len]``) for a member path: the range its kernel touches where
    the loops bound it, else the member's whole storage (omp.member_counts); ``to`` when
    the kernel only reads it, else ``tofrom``."""
    path = MEMBER.fullmatch(pointer)
    if path is None:
        return f"'{pointer}' is a member path of more than one level"
    found = _clause(kernel, mine, refs, pointer, text, copied, declared, floors, uses,
                    model=model)
    if isinstance(found, tuple) or not mine:
        return found
    count = member_count(model, source, path.group(1), path.group(2), path.group(3)) or \
        agreed_count(model, path.group(1), path.group(2), path.group(3))
    if count is None:
        return (f"{found}, and the count of the storage of '{pointer}' is not known from "
                "its allocations")
    # an out-parameter of the allocating helper (``*(&SD.max_num_nucs)``): the member itself
    count = re.sub(r"\*\s*\(\s*&\s*([A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*)\s*\)",
                   r"\1", count)
    # ``tofrom`` only where the kernel, or a function it passes the member to, may write it
    return ("tofrom" if written_through_calls(model, mine) else "to"), f"{pointer}[0:{count}]"


def _nonnegative_hull(extents: list[str], floors: dict[str, int]) -> str | None:
    """The hull of sections whose bounds differ by more than constants (a 5-point stencil
    ``t[(j - 1) * nx + i]`` ... ``t[(j + 1) * nx + i]``: ``1`` and ``2 * nx + 1``). Each
    variable of the bounds is at least its floor: what the kernel's loops need to run
    (``for (i = 1; i < nx - 1; i++)`` runs when ``nx >= 3``; a kernel whose loops do not run
    touches nothing, so its mapping does not matter), else 0 (extents and strides are not
    negative). A bound is the least (greatest) one when its difference to every other is
    non-negative under these floors; None when none is."""
    bounds = []
    for extent in extents:
        low, length = extent.strip()[1:-1].split(":")
        try:
            lo = poly(low)
            bounds.append((lo, add(lo, poly(length))))
        except NotPoly:
            return None
    if any(not _PLAIN.fullmatch(atom) for lo, hi in bounds for key in (*lo, *hi)
           for atom in key):
        return None
    lows, highs = [b[0] for b in bounds], [b[1] for b in bounds]

    def least(candidates, sign):
        return next((c for c in candidates if all(
            _nonnegative(scale(add(o, scale(c, -1)), sign), floors) for o in candidates)), None)

    low, high = least(lows, 1), least(highs, -1)
    if low is None or high is None:
        return None
    return f"[{render(low)}:{render(add(high, scale(low, -1)))}]"


def _nonnegative(p, floors: dict[str, int]) -> bool:
    """Whether ``p`` is >= 0 for every value of its variables at or above their floors:
    each variable shifted by its floor, every coefficient of the result non-negative."""
    shifted: dict = {}
    for key, coefficient in p.items():
        term = {(): coefficient}
        for atom in key:
            term = mul(term, {(atom,): 1, (): floors.get(atom, 0)})
        shifted = add(shifted, term)
    return all(coefficient >= 0 for coefficient in shifted.values())


def _floors(kernel: Stmt, text) -> dict[str, int]:
    """Least values of variables that the kernel's counting loops need to run at all:
    ``for (i = a; i <= v + c; ...)`` with a constant ``a`` runs only when ``v >= a - c``;
    other terms of ``v + c - a`` with negative coefficients (TeaLeaf's ``for (kk = halo; kk
    < x - halo; ...)``: ``x - 2 * halo - 1``) only raise that floor, as every variable is at
    least 0 (extents and strides are not negative), so ``v >= -c`` holds still."""
    floors: dict[str, int] = {}
    for loop in kernel.walk():
        found = loop_range(loop) if loop.kind == "for" else None
        if found is None:
            continue
        _var, first, last = found
        span = add(last, scale(first, -1))
        names = [key for key in span if key and span[key] == 1 and len(key) == 1 and
                 _PLAIN.fullmatch(key[0])]
        rest = [key for key in span if key and key not in names]
        if len(names) == 1 and all(span[key] < 0 and all(_PLAIN.fullmatch(atom)
                                                         for atom in key) for key in rest):
            floor = -span.get((), 0)
            floors[names[0][0]] = max(floors.get(names[0][0], floor), floor)
    return floors


def _declared_inside(model: TranslationUnit, function: str | None, kernel: Stmt
                     ) -> frozenset[str] | None:
    """The variables declared inside the kernel (not in scope at the directive, where the
    clause goes): every declarator of its declarations, from the function's variable
    mentions (``int i = 0, k = n;`` declares both). None when those were not extracted."""
    uses = model.in_function("var_uses", function) if function else ()
    if not uses:
        return None
    return frozenset(u.name for u in uses if u.role in ("declare", "null-init", "init") and
                     kernel.span.contains(u.span))


def _kernel_stmt(model: TranslationUnit, directive: int) -> Stmt | None:
    """The statement a target directive is associated with."""
    wanted = model.directives[directive].stmt_span
    if wanted is None:
        return None
    function = model.directives[directive].function
    for candidate in model.functions:
        if candidate.name != function or candidate.body is None:
            continue
        for stmt in candidate.body.walk():
            if stmt.span.start == wanted.start and stmt.span.file == wanted.file:
                return stmt
    return None
