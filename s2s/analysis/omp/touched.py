"""Copies narrowed to the elements the device touches (issue 17, item 8).

The planner moves the section the host side needs: ``target update to(d[0:n + 1])`` when the
host rewrote ``d`` and a kernel reads it. When every kernel of the region touches only
``d[1:n]`` (a bias element at index 0 that lives on the host, a halo that only the host
fills), the other elements never need to reach the device, nor come back from it.

The *device hull* of an array is the hull of every device access to it in the region: each
kernel's subscript, affine in the counters of the counting loops around it, bounded over
those loops (:func:`s2s.analysis.omp.loops.write_extent`, which bounds reads as well as
writes). Every ``target update`` of the array inside the region is then cut to the hull:
an update that misses it is dropped, one that overlaps it by a constant margin is trimmed.

Why that is right: outside the hull the device never reads or writes an element, so the
device never needs its value, and copying it back could only bring an older value over
the host's. The host's own copy of those elements therefore evolves by host code alone,
as long as nothing else copies them back:

* ``from`` updates are cut to the hull as well;
* a ``to`` update is only cut when the region's exit does not copy the array back (an exit
  ``from`` copies the whole section, and would bring back the element whose ``to`` was
  dropped);
* the hull is only used when every device access is known: each one is in the region's
  own function (a callee's kernel names the array through its parameters), through a
  pointer that holds the array's address itself (no ``p = a + 1`` alias, no pointer
  reassigned in the region), with a bounded subscript over variables the region does not
  change.

Any doubt keeps the planned copies as they are.
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.analysis.omp.changes import Scope, changing_term
from s2s.analysis.omp.ir import Access, Copy, FunctionIR, Node
from s2s.analysis.omp.loops import write_extent
from s2s.analysis.omp.place import PlannedUpdate
from s2s.analysis.omp.sections import ref_range
from s2s.analysis.polynomial import add, disjoint, hull, intersection, render, scale, within

#: a planned item ``name[lo:len]``: text the planner wrote itself, not the user's C
_ITEM = re.compile(r"^\s*([A-Za-z_]\w*)\s*(\[.*\])\s*$", re.S)


def device_hulls(model, ir: FunctionIR, nodes: list[Node], tracked: frozenset,
                 device_uses: dict, text, swapped: bool, scope: Scope
                 ) -> dict[str, tuple[frozenset, str]]:
    """Per mapped label whose device accesses are all known (module doc): the pointer
    names its kernels use and the ``[lo:len]`` hull of the elements they touch. ``scope``:
    the region's statements and its callees (omp.guards.region_scope), where the hull's
    variables must not change."""
    if swapped:
        return {}
    function = ir.function.name
    offsets = _offset_targets(ir.root)
    copied = frozenset(event.target for top in nodes for node in top.walk()
                       for event in node.events if isinstance(event, Copy))
    hulls = {}
    for label in tracked:
        uses = device_uses.get(label, ())
        pointers = frozenset(use[1] for use in uses)
        if not uses or any(use[0] != function for use in uses) or pointers & offsets or \
                (pointers | {label}) & copied or \
                any(not re.fullmatch(r"[A-Za-z_]\w*", p) for p in pointers):
            continue
        hull = _hull(nodes, pointers, text, model)
        if hull is not None and changing_term(model, hull, scope) is None:
            hulls[label] = (pointers, hull)
    return hulls


def host_outside(hulls: dict, model, ir: FunctionIR, nodes: list[Node], text, scope: Scope
                 ) -> tuple[frozenset, frozenset]:
    """The host accesses of the region (ids of their events) to elements outside their
    array's device hull, and the labels some of them write. The device never touches those
    elements, so the dataflow may pass over these accesses (module doc).

    Only for an array the function names by one plain name that no pointer copy involves
    (no alias, no member path, no vector handle): every copy the plan places then names it
    by that name, which is what :func:`unsound` checks."""
    aliased = {name for node in ir.root.walk() for event in node.events
               if isinstance(event, Copy) and event.source is not None  # not an allocation
               for name in (event.target, event.source)}
    names = {}
    for label, (pointers, _) in hulls.items():
        if pointers == {label} and label not in aliased:
            names[label] = label
    ignored, written = set(), set()
    for top in nodes:
        for node in top.walk():
            for event in node.events + node.cond + node.step:
                if not isinstance(event, Access) or event.side != "H" or \
                        event.name not in names or event.ref is None or \
                        len(event.ref.subscripts) != 1:
                    continue
                found = ref_range(event.ref.subscripts[0].text, node, top, text)
                if found is None:
                    continue
                low, high = found
                section = f"[{render(low)}:{render(add(add(high, scale(low, -1)), {(): 1}))}]"
                label = names[event.name]
                if changing_term(model, section, scope) is None and \
                        disjoint(section, hulls[label][1]):
                    ignored.add(id(event))
                    if event.writes:
                        written.add(label)
    return frozenset(ignored), frozenset(written)


def unsound(written: frozenset, hulls: dict, function: str, arrays, updates, exits
            ) -> frozenset:
    """The labels among ``written`` (host writes passed over) that some copy could still
    bring back from the device outside their hull: an exit ``from`` of the whole section,
    a ``from`` item not within the hull, or an update in a called function (whose names
    are not checked here). Planning again without passing over their accesses is right."""
    if not written:
        return frozenset()
    if any(u.function != function for u in updates):
        return written
    bad = {a.name for a in arrays if a.name in written and a.exit == "from"}
    by_pointer = {p: label for label in written for p in hulls[label][0] | {label}}
    items = [u.item for u in updates if u.motion == "from"] + list(exits)
    for item in items:
        match = _ITEM.match(item)
        name = match.group(1) if match else None
        if name in by_pointer and not within(match.group(2), hulls[by_pointer[name]][1]):
            bad.add(by_pointer[name])
    return frozenset(bad)


def _offset_targets(root: Node) -> frozenset:
    """Pointers some copy sets to another pointer plus an offset (``p = a + 1``): their
    subscripts count from another element than the array's first."""
    return frozenset(event.target for node in root.walk() for event in node.events
                     if isinstance(event, Copy) and event.offset)


def _hull(nodes: list[Node], pointers: frozenset, text, model=None) -> str | None:
    """The hull of every device access through ``pointers`` in the region, or None when
    one is not bounded (outside a kernel's counting loops, a call's argument ...)."""
    extents = []
    for top in nodes:
        for node in top.walk():
            for event in node.events + node.cond + node.step:
                if not (isinstance(event, Access) and event.name in pointers) or \
                        event.side != "D":
                    continue
                extent = write_extent(node.stmt, event.ref, text, model) \
                    if node.kind == "kernel" and event.ref is not None else None
                if extent is None:
                    return None
                extents.append(extent)
    return hull(extents)


def narrow(updates: list[PlannedUpdate], entry: list[str], reasons: list[str],
           exits: list[str], hulls: dict, copied_back: frozenset
           ) -> tuple[list[PlannedUpdate], list[str], list[str], list[str]]:
    """The region's updates, entry and exit items cut to the device hulls (module doc).
    ``copied_back``: labels whose exit map copies them to the host (their ``to`` items
    stay whole)."""
    by_pointer = {}
    for label, (pointers, touched) in hulls.items():
        for pointer in pointers | {label}:
            by_pointer[pointer] = (label, touched)
    kept = []
    for update in updates:
        cut = _cut(update.item, by_pointer, update.motion == "to", copied_back)
        if cut is None:
            continue
        kept.append(update if cut == update.item else replace(update, item=cut))
    entry_kept, reasons_kept = [], []
    for item, reason in zip(entry, reasons, strict=True):
        cut = _cut(item, by_pointer, True, copied_back)
        if cut is not None:
            entry_kept.append(cut)
            reasons_kept.append(reason)
    exits_kept = [c for c in (_cut(i, by_pointer, False, copied_back) for i in exits)
                  if c is not None]
    return kept, entry_kept, reasons_kept, exits_kept


def _cut(item: str, by_pointer: dict, to_device: bool, copied_back: frozenset) -> str | None:
    """``item`` cut to its array's hull; None when nothing of it is left."""
    match = _ITEM.match(item)
    if match is None or match.group(1) not in by_pointer:
        return item
    label, touched = by_pointer[match.group(1)]
    if to_device and label in copied_back:
        return item
    section = match.group(2)
    if disjoint(section, touched):
        return None
    inner = intersection(section, touched)
    return item if inner is None else f"{match.group(1)}{inner}"

