"""Scalar members beside the member arrays a data region maps.

A region that maps ``w.p[0:w.npts]`` maps the struct ``w`` member by member: on the device,
``w`` holds the attached pointers and nothing else, over the range from its first mapped
member to its last. A kernel of the region's function that reads ``w.dt`` would read a
member no clause copied (garbage on the device; XSBench names ``map(to: SD.max_num_nucs)``
for that reason), and a clause of the kernel's own for it would extend the present struct
(libomptarget: "explicit extension not allowed"). So the region itself maps the scalar
members its kernels read (omp.member_counts.companion_members), ``to`` at entry, released
at exit. A kernel that writes one (or takes its address), or a host write of one in the
region's function, refuses the region: the safety net then maps each construct.
"""

from __future__ import annotations

from s2s.analysis.omp.arrays import MappedArray
from s2s.analysis.omp.member_counts import MEMBER, companion_members
from s2s.analysis.omp.state import norm_text


def region_companions(model, source: bytes, region) -> tuple[list[MappedArray], str | None]:
    """The scalar members the region's own kernels read beside its member arrays (module
    doc), and why the region cannot stand with them, or None."""
    mapped: dict[tuple[str, str], set[str]] = {}
    for array in region.arrays:
        found = MEMBER.fullmatch(norm_text(array.name))
        if found:
            mapped.setdefault((found.group(1), found.group(2)), set()).add(found.group(3))
    if not mapped:
        return [], None
    out: list[str] = []
    for directive in model.directives:
        if not directive.is_target_region or directive.function != region.function or \
                directive.stmt_span is None:
            continue
        for (root, sep), members in mapped.items():
            found = companion_members(model, region.function, directive.stmt_span, root, sep,
                                      members)
            if isinstance(found, str):
                return [], found
            out += [path for path in found if path not in out]
    for path in out:
        root, sep, member = MEMBER.fullmatch(path).groups()
        if any(w.base == root and w.member == member
               for w in model.in_function("member_writes", region.function)):
            return [], f"the host writes '{path}', which the device reads beside the arrays"
    return [MappedArray(path, "", "to", "release") for path in out], None
