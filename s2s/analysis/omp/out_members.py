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
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.analysis.omp.member_counts import member_count
from s2s.analysis.omp.state import norm_text
from s2s.model import HostAllocation, TranslationUnit
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
    if not by_callee:
        return model
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
    if not added:
        return model
    merged = sorted(model.allocations + tuple(added), key=lambda a: (a.span.start, a.span.end))
    return replace(model, allocations=tuple(merged))
