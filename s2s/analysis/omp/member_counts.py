"""The element count of a struct member's storage, at a target construct that uses it.

The safety net (omp.fallback) maps each pointer of a construct over the range its kernel
touches. A member of a struct passed by value (XSBench's ``SimulationData SD``: ``SD.concs``
passed on to device functions, read at indices computed from data) has no such range; what
a careful human maps there is the member's whole storage, ``SD.concs[0:SD.length_concs]``,
with the length the program keeps beside the array. That count is read off the member's
allocations, wherever in the program they are (``SD.concs = malloc(SD.length_concs *
sizeof(double))`` in grid_init, ``m->u = new_doubles(m->n_nodes)`` through a helper in
another file), moved to the construct's own access path (``SD.length_concs`` of the struct
there: the owner at the allocation is another variable of the same struct, a value or a
pointer). It is used only when

* every allocation of a member of that name translates to the same count (two structs with a
  member ``u`` of different lengths, or one member allocated with two lengths, are refused),
* the count names nothing but members of the owner, integer literals, ``sizeof`` and names
  that are no variable of the program (macros, enumerators): a local of the allocating
  function means nothing at the construct; a parameter of it is read through the one call
  of it in the function that uses the count (``init_bodies(&b, n)``: main's ``n``), where
  that is known and the argument keeps its value after the call,
* each member the count names is written (assigned, incremented, its address taken) only
  in functions that allocate the member: a length changed after the allocation would map
  another range than the storage holds.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.member_agree import agreed_count, written_only_in
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import NotPoly, poly, render
from s2s.model import TranslationUnit
from s2s.model.host_facts import VALUE_ROLES

#: ``owner.member`` / ``owner->member`` (one level)
MEMBER = re.compile(r"([A-Za-z_]\w*)(\.|->)([A-Za-z_]\w*)")
_WORD = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)")


def member_count(model: TranslationUnit, source: bytes, root: str, sep: str,
                 member: str, at: str | None = None) -> str | None:
    """The count of ``root<sep>member``'s storage written in ``root``'s terms (module
    doc), or None when it is not known for certain. ``at``: the function the count is used
    in; a count naming parameters of the allocating function is read there through its one
    call of that function (:func:`_through_call`)."""
    allocations = [(a, found) for a in model.allocations
                   if (found := MEMBER.fullmatch(norm_text(a.name))) and found.group(3) == member]
    if not allocations or any(a.count is None for a, _ in allocations):
        return None
    allocating = {a.function for a, _ in allocations}
    variables = _declared_in(model, allocating)
    counts = set()
    for allocation, found in allocations:
        owner = found.group(1)
        fields: set[str] = set()

        def moved(match, owner=owner, fields=fields) -> str:
            fields.add(match.group(1))
            return f"{root}{sep}{match.group(1)}"

        text = re.sub(rf"(?<![\w.>]){re.escape(owner)}\s*(?:\.|->)\s*([A-Za-z_]\w*)", moved,
                      norm_text(allocation.count.text))
        rest = _WORD.sub(lambda m: "" if m.group(1) == root else m.group(1), text)
        named = {name for name in _WORD.findall(rest) if name in variables}
        if named:
            text = _through_call(model, text, named, allocation, owner, root, sep, at)
            if text is None:
                return None
        if any(not written_only_in(model, name, allocating) for name in fields):
            return None
        try:
            counts.add(render(poly(text)))
        except NotPoly:
            counts.add(text)
    return counts.pop() if len(counts) == 1 else None


def member_section(model: TranslationUnit, source: bytes, label: str,
                   at: str | None = None) -> str | None:
    """``[0:count]`` of a member path label (``t.mu``, ``m->u``) from its allocations
    (:func:`member_count`, else the count its allocations agree on,
    :func:`s2s.analysis.omp.member_agree.agreed_count`), for the whole-program plan: the
    same count the safety net maps per construct, so the plan holds the storage over the
    data region on the first run (a second run would otherwise read it off the first run's
    per-construct clauses: nuclide_lookup's tables, allocated in xs_build and xs_restore
    with counts spelled differently)."""
    path = MEMBER.fullmatch(label)
    if path is None:
        return None
    count = member_count(model, source, path.group(1), path.group(2), path.group(3), at) or \
        agreed_count(model, path.group(1), path.group(2), path.group(3))
    return None if count is None else f"[0:{count}]"


def _declared_in(model: TranslationUnit, functions: set) -> set[str]:
    """The parameters and locals of ``functions`` (the variables their mentions and
    declarators name, ``s2s.model.host_facts.VarUse.local``): a count naming one means
    nothing outside the allocating function (graph.c's ``g->col_idx = malloc(sizeof(int) *
    (m > 0 ? m : 1))``, ``m`` a local: the construct's clause named an undeclared ``m``)."""
    names: set[str] = set()
    for function in model.functions:
        if function.name in functions:
            names.update(p.name for p in function.params if p.name)
            names.update(use.name for use in model.in_function("var_uses", function.name)
                         if use.local)
    return names


def _through_call(model: TranslationUnit, text: str, named: set[str], allocation,
                  owner: str, root: str, sep: str, at: str | None) -> str | None:
    """``text``, a count naming the variables ``named`` of the function that makes
    ``allocation``, in the names of ``at``: as written when ``at`` is that function and none
    of them is given a value after the allocation; else through ``at``'s one call of it
    (nbody's ``init_bodies(&b, n)``: the callee's ``b->ax = new_array(n)`` is main's
    ``b.ax[0:n]``), when ``named`` are parameters (a local of the callee means nothing
    outside it), the owner's parameter is bound to ``&root`` (``root`` for ``->``) or the
    owner is the callee's local that ``root`` is made from (:func:`_made_by`), and no
    variable of the bound arguments is given a value in ``at`` after the call (its
    var_uses). None otherwise."""
    if at is not None and allocation.function == at:
        return None if _written_after(model, at, named, allocation.span.end) else text
    functions = {f.name: f for f in model.functions}
    callee, caller = functions.get(allocation.function), functions.get(at) if at else None
    if callee is None or caller is None:
        return None
    params = [p.name for p in callee.params]
    calls = [c for c in caller.calls if c.name == callee.name]
    if not named <= set(params) or len(calls) != 1 or len(calls[0].args) != len(params):
        return None
    call = calls[0]
    binding = {p: norm_text(a.text) for p, a in zip(params, call.args, strict=True)}
    if owner in params:
        if binding[owner].replace(" ", "") != (f"&{root}" if sep == "." else root):
            return None
    elif not _made_by(model, at, root, call, owner, callee.name):
        return None             # (the storage at the construct must be the call's own)
    arguments = {name for p in named for name in _WORD.findall(binding[p])}
    if _written_after(model, at, arguments, call.span.end):
        return None
    return _WORD.sub(lambda m: f"({binding[m.group(1)]})" if m.group(1) in named
                     else m.group(1), text)


def _made_by(model: TranslationUnit, at: str, root: str, call, owner: str,
             callee: str) -> bool:
    """Whether ``root`` in ``at`` is the struct ``call`` returns: ``owner`` is a local of the
    callee, and ``root``'s one value in ``at`` is the call (``ParticleArrays p =
    make_particles(n, seed)``), so the members at the construct are the call's storage."""
    locals_of_callee = {u.name for u in model.in_function("var_uses", callee) if u.local}
    writes = [u for u in model.in_function("var_uses", at)
              if u.name == root and u.role in VALUE_ROLES]
    if owner not in locals_of_callee or len(writes) != 1 or writes[0].value is None:
        return False
    value = writes[0].value
    return norm_text(value.text).startswith(f"{callee}(") and \
        value.span.start <= call.span.start and call.span.end <= value.span.end


def _written_after(model: TranslationUnit, function: str, names: set[str], offset: int
                   ) -> bool:
    """Whether one of ``names`` may be given a value in ``function`` after ``offset`` (True
    when the function's mentions were not extracted: not known)."""
    uses = model.in_function("var_uses", function)
    return not uses or any(u.name in names and u.role in VALUE_ROLES and u.span.start >= offset
                           for u in uses)


def companion_members(model: TranslationUnit, function: str | None, span, root: str,
                      sep: str, mapped: set[str]) -> list[str] | str:
    """The other members of ``root`` the kernel at ``span`` (in ``function``) uses
    (``SD.max_num_nucs`` beside the mapped ``SD.concs[0:...]``), each to be mapped ``to``:
    once a member section of a struct is mapped, the construct maps the struct itself member
    by member, and a member no clause names is not copied (the device reads garbage;
    XSBench names ``map(to: SD.max_num_nucs)`` for that reason). A string saying why when
    the kernel writes one. The uses are the AST's (``VarUse.field`` of ``root``'s member
    mentions, ``root`` reached through ``->`` when it is a pointer), the writes its member
    writes (``MemberWrite``): a member named in a comment or a string is none, one reached
    through a macro's expansion is one."""
    arrow = sep == "->"
    uses = [u for u in model.in_function("var_uses", function) if u.name == root and
            u.role == "member" and u.pointer == arrow and _inside(u.span, span)]
    written = {w.member: w for w in model.in_function("member_writes", function) if
               w.base == root and _inside(w.span, span)}
    found: list[str] = []
    for use in sorted(uses, key=lambda u: u.span.start):
        path = f"{root}{sep}{use.field}"
        if use.field in mapped or path in found:
            continue
        if use.field in written:
            return f"the kernel writes '{path}' (or takes its address)"
        found.append(path)
    return found


def _inside(inner, outer) -> bool:
    return inner.file == outer.file and outer.start <= inner.start and inner.end <= outer.end
