"""Struct members a called function allocates through the address of the caller's struct.

``Mesh mesh; mesh_build(&mesh, nx);`` with ``mesh_build(Mesh *m, int nx)`` doing ``m->u =
new_doubles(m->nnode);`` in another file: the caller's ``mesh.u`` is an allocation of
``mesh.nnode`` elements made at the call. Without that fact the plan of the caller knows no
count for ``mesh.u`` and each target construct is mapped on its own (issue 28, 3c: with the
program's map clauses removed, the plan of ``main`` was refused and every sweep copied the
whole mesh in and out).

At each call that passes ``&obj`` (or a pointer ``p``: ``p->u``) for a pointer parameter ``m``
of a function of the program, each allocation ``m->member`` that function makes becomes an
allocation of ``obj.member`` in the caller, at the call, with the count
:func:`s2s.analysis.omp.member_counts.member_count` gives for it in the caller's terms (the
same count at every allocation of a member of that name, naming only members of the struct
that are written nowhere but where the members are allocated): a count that is not certain
gives no allocation, and the plan stays as it was.

The same holds for a struct a called function creates and returns (``Particles *P =
particles_create(n, 1.3);`` whose every ``return`` hands back its local ``p`` after ``p->mass =
alloc_doubles(n)``): ``P->mass`` is allocated at the call, with the count written in the
callee's parameters (never assigned there) bound to the call's arguments.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from s2s.analysis.omp.changes import assigns_any
from s2s.analysis.omp.member_counts import member_count
from s2s.analysis.omp.state import norm_text
from s2s.model import HostAllocation, TranslationUnit
from s2s.model.host import HelperCall
from s2s.model.span import Expr

_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)\Z")
_POINTER = re.compile(r"([A-Za-z_]\w*)\Z")
_MEMBER = re.compile(r"([A-Za-z_]\w*)->([A-Za-z_]\w*)\Z")


def with_callee_members(model: TranslationUnit, source: bytes) -> TranslationUnit:
    """``model`` with the allocations of its callers' struct members (module doc) added;
    ``model`` itself when there are none."""
    by_callee: dict[str, list[tuple[int, str, HostAllocation]]] = {}
    functions = {f.name: f for f in model.functions}
    for allocation in model.allocations:
        found = _MEMBER.fullmatch(norm_text(allocation.name))
        function = functions.get(allocation.function or "")
        if found is None or function is None:
            continue
        params = [p.name for p in function.params]
        if found.group(1) in params:
            by_callee.setdefault(function.name, []).append(
                (params.index(found.group(1)), found.group(2), allocation))
    known = {(a.function, norm_text(a.name)) for a in model.allocations}
    added = []
    for caller in model.functions:
        for call in caller.calls:
            for index, member, allocation in by_callee.get(call.name, ()):
                if index >= len(call.args):
                    continue
                argument = norm_text(call.args[index].text)
                owner = _ADDRESS.fullmatch(argument)
                root, sep = (owner.group(1), ".") if owner else (argument, "->")
                if not _POINTER.fullmatch(root) or (caller.name, f"{root}{sep}{member}") in known:
                    continue
                count = member_count(model, source, root, sep, member)
                if count is None:
                    continue
                name = f"{root}{sep}{member}"
                known.add((caller.name, name))
                # kind ``helper``: the callee may have filled it (its elements are data)
                added.append(HostAllocation(name, "helper", allocation.element_type,
                                            call.span, caller.name, Expr(count, call.span)))
    added += _returned_members(model, source, by_callee, known)
    if not added:
        return model
    merged = sorted(model.allocations + tuple(added), key=lambda a: (a.span.start, a.span.end))
    return replace(model, allocations=tuple(merged))


_WORD = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")
#: type names a count's casts spell (``(size_t)n``)
_TYPE_WORDS = frozenset({"size_t", "ssize_t", "ptrdiff_t", "int", "long", "unsigned", "short",
                         "signed", "char", "int32_t", "int64_t", "uint32_t", "uint64_t"})


def _returned_members(model: TranslationUnit, source: bytes, by_callee: dict,
                      known: set) -> list[HostAllocation]:
    """The member allocations of structs that called functions create and return (module
    doc), at each call whose value a pointer of the caller takes (``HelperCall``)."""
    functions = {f.name: f for f in model.functions}
    out = []
    for call in _value_calls(model, functions):
        callee = functions.get(call.callee)
        local = _returned_local(callee)
        if local is None or not _POINTER.fullmatch(call.target.strip()):
            continue
        params = [p.name for p in callee.params]
        if len(params) != len(call.args):
            continue
        for allocation in model.allocations:
            found = _MEMBER.fullmatch(norm_text(allocation.name))
            if found is None or found.group(1) != local or allocation.function != callee.name \
                    or allocation.count is None:
                continue
            count = _bound(allocation.count.text, params, call.args, functools.partial(
                assigns_any, model, callee.name, declarations=False))
            name = f"{call.target.strip()}->{found.group(2)}"
            if count is None or (call.function, name) in known:
                continue
            known.add((call.function, name))
            out.append(HostAllocation(name, "helper", allocation.element_type, call.span,
                                      call.function, Expr(count, call.span)))
    return out


def _value_calls(model: TranslationUnit, functions: dict) -> list[HelperCall]:
    """Calls whose value a pointer takes: those to functions of other files (the model's
    ``helper_calls``) and those of the same file that the front end made allocations of
    (a helper returning ``malloc``'s value), each as a :class:`HelperCall`."""
    out = list(model.helper_calls)
    sites = {(c.span.file, c.span.start): c for f in model.functions for c in f.calls}
    for allocation in model.allocations:
        site = sites.get((allocation.span.file, allocation.span.start))
        if site is not None and site.name in functions and allocation.function is not None:
            out.append(HelperCall(site.name, tuple(a.text for a in site.args),
                                  allocation.name, site.span, allocation.function))
    return out


def _returned_local(function) -> str | None:
    """The local every ``return`` of ``function`` hands back (``return p;``), or None."""
    if function is None or function.body is None:
        return None
    values = {norm_text(s.cond.text) for s in function.body.walk()
              if s.kind == "return" and s.cond is not None}
    returns = [s for s in function.body.walk() if s.kind == "return"]
    if len(values) != 1 or len(returns) == 0 or any(s.cond is None for s in returns):
        return None
    value = values.pop()
    params = {p.name for p in function.params}
    return value if _POINTER.fullmatch(value) and value not in params else None


def _bound(count: str, params: list[str], args: tuple[str, ...], assigned) -> str | None:
    """``count`` (the callee's) with its parameters replaced by the call's arguments; None
    when it names anything else (a local, a member) or the callee may assign one of its
    parameters (``assigned``: whether the callee may assign one of the names it is given,
    from the AST's mentions)."""
    names = {m.group(0) for m in _WORD.finditer(count)} - {"sizeof"} - _TYPE_WORDS
    if not names <= set(params) or any(assigned((n,)) for n in names):
        return None
    binding = {p: a.strip() if _POINTER.fullmatch(a.strip()) or a.strip().isdigit()
               else f"({a.strip()})" for p, a in zip(params, args, strict=True)}
    return _WORD.sub(lambda m: binding.get(m.group(0), m.group(0)), count)
