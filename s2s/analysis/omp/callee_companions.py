"""Scalar members that kernels of callees read beside the member arrays a caller's region maps.

omp.region_companions maps the scalar members (``w.dt``) that the region's own kernels read
beside the member arrays it maps: a struct mapped member by member holds on the device only
the members named. A kernel in a callee reaches the same struct through a parameter
(``compute_density(P)`` reading ``P->h`` beside ``P->x[i]``): without a clause for ``P->h``
it reads garbage on the device, and a clause of the kernel's own would extend the present
struct. So the region maps those members too, under the caller's name of the struct
(issue 28: such a construct was warned about and counted mapped). The same holds for a
member the callee's construct names in a map clause of its own through a pointer to the
caller's struct (``map(to: g->n)`` in a shipped program): mapped by the region, the clause
finds it present (a struct passed by value is the callee's own copy: its clauses map that).

Facts from the model: the region's device names per callee (which pointer names the callee's
kernels use for the mapped members) and the array references of the callee's kernels.
"""

from __future__ import annotations

from s2s.analysis.omp.arrays import MappedArray
from s2s.analysis.omp.member_counts import MEMBER
from s2s.analysis.omp.state import norm_text


def callee_companions(model, region) -> tuple[list[MappedArray], tuple, str | None]:
    """(the members to map ``to``, their (function, name) device names, why the region cannot
    stand with them or None) for the kernels of callees of ``region.function``."""
    caller = _structs(norm_text(a.name) for a in region.arrays)
    if not caller:
        return [], (), None
    host_written = {norm_text(ref.array) for ref in model.in_function("array_refs",
                                                                     region.function)
                    if ref.directive is None and ref.mode != "read"}
    added: list[str] = []
    names: list[tuple[str, str]] = []
    bindings = _bindings(region, caller)
    for where, root, sep, home in bindings:
        refs = _scalar_refs(model, where, root, sep, caller[home])
        # only the members a kernel reads matter: a host write of another is no concern
        read = {member for ref, member in refs if ref.directive is not None}
        for ref, member in refs:
            path = f"{home[0]}{home[1]}{member}"
            if member not in read:
                continue
            if ref.mode != "read":
                where_said = "a kernel of" if ref.directive is not None else "the host in"
                return [], (), (f"{where_said} '{where}' writes '{ref.array}', which a "
                                "kernel reads beside the arrays of a struct the region "
                                "maps member by member")
            if path in host_written:
                return [], (), (f"the host in '{region.function}' writes '{path}', which "
                                f"a kernel of '{where}' reads beside the arrays")
            if ref.directive is None:
                continue
            if path not in added:
                added.append(path)
            if (where, norm_text(ref.array)) not in names:
                names.append((where, norm_text(ref.array)))
    for where, root, sep, home in bindings:
        if sep != "->":
            continue    # (a struct passed by value: the callee's clauses map its own copy)
        for member in _clause_members(model, where, root, sep, caller[home]):
            path = f"{home[0]}{home[1]}{member}"
            if path in host_written:
                return [], (), (f"the host in '{region.function}' writes '{path}', which "
                                f"a construct of '{where}' maps beside the arrays")
            if path not in added:
                added.append(path)
    return [MappedArray(path, "", "to", "release") for path in added], tuple(names), None


def _bindings(region, caller: dict) -> list[tuple[str, str, str, tuple[str, str]]]:
    """(callee, its name of a struct, its separator, the caller's struct key) for each
    struct of ``caller`` that a callee's kernels reach: through the mapped members they use
    (the region's device names: ``P->x`` of the caller's ``P``, or of its ``g`` passed as
    ``&g``), or through scalar members alone (``g->h`` of the caller's ``g.h``, the plan's
    ``member_uses``)."""
    by_callee: dict[str, list[str]] = {}
    for where, name in region.device_names:
        if where != region.function:
            by_callee.setdefault(where, []).append(norm_text(name))
    out = []
    for where, device in sorted(by_callee.items()):
        for (root, sep), members in _structs(device).items():
            home = [key for key, known in caller.items() if members <= known and
                    (key[1] == sep or (key[1], sep) == (".", "->"))]
            if len(home) == 1:      # else not one struct of the caller: nothing is claimed
                out.append((where, root, sep, home[0]))
    for label, where, name in region.member_uses:
        found, mine = MEMBER.fullmatch(norm_text(label)), MEMBER.fullmatch(norm_text(name))
        if where != region.function and found and mine and \
                found.group(1, 2) in caller and found.group(3) == mine.group(3):
            binding = (where, mine.group(1), mine.group(2), found.group(1, 2))
            if binding not in out:
                out.append(binding)
    return out


def _scalar_refs(model, where: str, root: str, sep: str, mapped: set[str]) -> list:
    """(reference, member) for the references of ``where`` to members of ``root`` other
    than the ``mapped`` ones and not reached through a pointer member."""
    out = []
    for ref in model.in_function("array_refs", where):
        found = MEMBER.fullmatch(norm_text(ref.array))
        if not ref.pointer and found is not None and found.group(1, 2) == (root, sep) and \
                found.group(3) not in mapped:
            out.append((ref, found.group(3)))
    return out


def _clause_members(model, where: str, root: str, sep: str, mapped: set[str]) -> list[str]:
    """The members of ``root`` other than the ``mapped`` ones that a target construct of
    ``where`` names in a map clause of its own (``map(to: g->n)`` beside the region's
    ``g.val``): the construct would extend the struct the region maps, which libomptarget
    refuses ("illegal mapping"), unless the region maps them too."""
    out = []
    for directive in model.in_function("directives", where):
        if not directive.is_target_region:
            continue
        for clause in directive.maps:
            for item in clause.items:
                found = MEMBER.fullmatch(norm_text(item.base))
                if not item.sections and found is not None and \
                        found.group(1, 2) == (root, sep) and found.group(3) not in mapped \
                        and found.group(3) not in out:
                    out.append(found.group(3))
    return out


def _structs(paths) -> dict[tuple[str, str], set[str]]:
    """(struct name, separator) -> the members of it among ``paths`` (``P->x`` -> P, ->, x)."""
    out: dict[tuple[str, str], set[str]] = {}
    for path in paths:
        found = MEMBER.fullmatch(path)
        if found:
            out.setdefault((found.group(1), found.group(2)), set()).add(found.group(3))
    return out
