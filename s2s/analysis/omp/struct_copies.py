"""Target constructs that reach mapped storage through a copy of a struct.

``static double smooth(Mesh m, int sweeps)`` runs kernels on ``m.acc[n]``, ``m.u[n]``: ``m``
is the callee's own copy of the caller's ``mesh``. A data region of the caller that maps
``mesh.acc[0:mesh.nnode]`` makes the storage present, but not ``m``: a construct that names
no member section of ``m`` maps ``m`` implicitly, bit for bit, with the host addresses in its
pointer members (right on clang's host device, wrong on a GPU; LIBOMPTARGET_INFO does not
show it). Such a construct is therefore not mapped by the region alone: it takes the safety
net's clauses (omp.fallback: ``map(tofrom: m.acc[0:m.nnode])`` and the scalar members the
kernel reads), which find the storage present, attach the copy's members to it and move
nothing but the scalars.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.guards import directive_chain
from s2s.analysis.omp.state import norm_text

_MEMBER = re.compile(r"([A-Za-z_]\w*)\s*\.\s*[A-Za-z_]\w*\Z")


def refs_by_directive(model) -> dict[int, list]:
    """The model's pointer (or dependent) array references, by the directive they are in:
    built once for all constructs (a scan of every reference per construct is quadratic in
    a file of 2,000 constructs)."""
    out: dict[int, list] = {}
    for ref in model.array_refs:
        if ref.directive is not None and (ref.pointer or ref.dependent):
            out.setdefault(ref.directive, []).append(ref)
    return out


def struct_copy_members(model, directive: int, refs: dict[int, list] | None = None
                        ) -> tuple[str, ...]:
    """The member pointers (``m.acc``) the construct ``directive`` uses through a struct
    parameter of its function passed by value, that no clause of it names. ``refs``: the
    model's :func:`refs_by_directive`, when the caller asks for many constructs."""
    function = model.function(model.directives[directive].function or "")
    if function is None:
        return ()
    if refs is None:
        refs = refs_by_directive(model)
    named = {norm_text(item.base) for d in directive_chain(model, directive)
             for clause in d.clauses for item in clause.items}
    by_value = {p.name for p in function.params
                if not p.is_pointer and "&" not in p.type and "*" not in p.type}
    found = []
    for ref in refs.get(directive, ()):
        member = _MEMBER.fullmatch(ref.array.strip())
        if member and member.group(1) in by_value and ref.array not in found and \
                norm_text(ref.array) not in named:
            found.append(ref.array)
    return tuple(found)
