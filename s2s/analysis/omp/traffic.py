"""Host-device copies of an OpenMP program before and after ``s2s omp``, counted statically.

*Before* is the naive baseline of per-construct mapping: every target construct copies each
array it uses in when it starts and back when it ends (``tofrom``, the implicit mapping of
an array and what per-kernel clauses usually say). *After* is the plan: each data region's
entry ``to`` and exit ``from`` maps, its ``target update``s (inside, after the entry, before
the exit), the clauses of function-local arrays and the static tables' one entry copy; a
construct no planned region covers keeps its naive copies, as do the arrays of a covered
construct that the plan does not map. A class whose vectors are mapped per object
(omp.lifetime) copies each in at the end of every constructor and out at the start of each
host reader; the kernels of its member functions find them present.

A *transfer site* is one copy of one array in one direction at one place of the code; a
site inside a loop runs once per iteration, which only a run measures (``s2s report --run``).
Element counts are the plan's and the program's expressions; :func:`total_bytes` turns them
into numbers with the compile-time constants of :mod:`s2s.frontend.host.constants` and keeps
the rest symbolic.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from s2s.analysis.omp.guards import directive_chain
from s2s.analysis.omp.plan import OmpPlan, RegionPlan
from s2s.analysis.omp.sizes import allocation_of
from s2s.analysis.polynomial import NotPoly, Poly, add, mul, poly, render
from s2s.model import SourceSpan, TranslationUnit


@dataclass(frozen=True)
class Transfer:
    """One copy site: ``array`` (``count`` elements; None: unknown, '' the whole array)
    moved ``to`` or ``from`` the device at ``span``, in ``function``'s names."""

    span: SourceSpan
    function: str | None
    array: str
    direction: str
    count: str | None


@dataclass(frozen=True)
class Traffic:
    before: tuple[Transfer, ...]
    after: tuple[Transfer, ...]


def program_traffic(model: TranslationUnit, plan: OmpPlan) -> Traffic:
    """The transfer sites of the naive baseline and of ``plan`` (see the module doc)."""
    before, after = [], []
    local = {(m.directive, m.clause.split(":", 1)[1].strip(" )")): m for m in plan.local_maps}
    for index, directive in enumerate(model.directives):
        if not directive.is_target_region:
            continue
        regions = [r for r in plan.regions
                   if directive.function in plan.reach.get(r.function, ())]
        mapped = _mapped_names(regions, directive.function) | {
            name for o in plan.objects for where, name in o.device_names
            if where == directive.function}
        for name in _used_arrays(model, index):
            count = _count(model, index, name, regions)
            naive = [Transfer(directive.span, directive.function, name, way, count)
                     for way in ("to", "from")]
            before += naive
            owned = local.get((directive.span, name))
            if owned is not None:
                way = owned.clause[4:].split(":", 1)[0].strip()
                after += [t for t in naive if way == "tofrom" or t.direction == way]
            elif name not in mapped:
                after += naive
    for region in plan.regions:
        after += _region_transfers(region)
    after += [Transfer(e.last.span, e.function, e.name, "to", "") for e in plan.static_entries]
    for o in plan.objects:  # a class's vectors mapped per object (omp.lifetime)
        after += [Transfer(body.span, o.cls, f, "to", o.length(f))
                  for body in o.enters for f in o.fields if o.entry(f) == "to"]
        after += [Transfer(body.span, name, f, "from", o.length(f))
                  for name, body, read in o.readers for f in read]
    return Traffic(tuple(before), tuple(_vla_counts(model, t) for t in after))


def _vla_counts(model: TranslationUnit, transfer: Transfer) -> Transfer:
    """A variable-length array mapped whole has no compile-time size: its element count is
    the product of its dimensions."""
    if transfer.count != "":
        return transfer
    allocation = _allocation(model, transfer.function, transfer.array)
    if allocation is None or allocation.kind != "vla" or not allocation.dims:
        return transfer
    return replace(transfer, count=" * ".join(f"({d.text})" for d in allocation.dims))


def _used_arrays(model: TranslationUnit, index: int) -> list[str]:
    """The arrays a construct uses, less those declared inside it."""
    stmt = model.directives[index].stmt_span
    function = model.directives[index].function
    names = []
    for ref in model.array_refs:
        if ref.directive != index or ref.region_local or ref.array in names:
            continue
        declared = _allocation(model, function, ref.array)
        if declared is not None and stmt is not None and \
                stmt.start <= declared.span.start < stmt.end:
            continue
        if ref.pointer or declared is not None:
            names.append(ref.array)
    return names


def _allocation(model: TranslationUnit, function: str | None, name: str):
    found = model.function(function) if function else None
    if found is None:
        return next((a for a in model.allocations if a.name == name and a.function is None),
                    None)
    return allocation_of(model, found, name)


def _mapped_names(regions: list[RegionPlan], function: str | None) -> set[str]:
    names = set()
    for region in regions:
        names |= {a.name for a in region.arrays}
        names |= {n for pair in region.handles for n in pair}
        names |= {name for where, name in region.device_names if where == function}
    return names


def _count(model: TranslationUnit, index: int, name: str, regions: list[RegionPlan]
           ) -> str | None:
    """The elements of ``name`` a naive mapping moves: the construct's own section, the
    allocation, or the planned region's section."""
    for directive in directive_chain(model, index):
        for clause in directive.maps:
            for item in clause.items:
                if item.base == name and len(item.sections) == 1 and item.sections[0].length:
                    return item.sections[0].length.text
    allocation = _allocation(model, model.directives[index].function, name)
    if allocation is not None:
        if allocation.kind == "static_array":
            return ""
        if allocation.kind == "vla" and allocation.dims:
            return " * ".join(f"({d.text})" for d in allocation.dims)
        if allocation.count is not None:
            return allocation.count.text
    for region in regions:
        for array in region.arrays:
            if array.name == name:
                return section_length(array.section)
    return None


def _region_transfers(region: RegionPlan) -> list[Transfer]:
    at, end, function = region.at, region.last.span, region.function
    out = []
    for array in region.arrays:
        count = section_length(array.section)
        if array.enter == "to":
            out.append(Transfer(at, function, array.name, "to", count))
        if array.exit == "from":
            out.append(Transfer(end, function, array.name, "from", count))
    out += [_item_transfer(at, function, item, "to") for item in region.entry_updates]
    out += [_item_transfer(end, function, item, "from") for item in region.exit_updates]
    out += [_item_transfer(u.at, u.function, u.item, u.motion) for u in region.updates]
    return out


def _item_transfer(at: SourceSpan, function: str, item: str, way: str) -> Transfer:
    name, bracket, rest = item.partition("[")
    return Transfer(at, function, name.strip(), way,
                    section_length(bracket + rest) if bracket else "")


def section_length(section: str) -> str | None:
    """``n`` of ``[0:n]``; ``''`` for no section (the whole array); the product of the
    lengths of ``[0:n][0:m]``; None for a section without a length."""
    if not section:
        return ""
    lengths = []
    for part in section.strip("[]").split("]["):
        if ":" not in part:
            lengths.append("1")
            continue
        length = part.split(":", 1)[1].strip()
        if not length:
            return None
        lengths.append(length)
    if len(lengths) == 1:
        return lengths[0]
    return " * ".join(f"({length})" for length in lengths)


@dataclass(frozen=True)
class ByteTotal:
    """Sites and bytes of a list of transfers: ``value`` when every size is a compile-time
    constant, else ``expression`` in the program's names (``unknown`` arrays have no known
    element count: their term is ``bytes(name)``)."""

    sites: int
    expression: str
    value: int | None


#: (function, name) -> its compile-time value / one element's bytes / the whole array's bytes
Lookup = Callable[[str | None, str], int | None]


def total_bytes(transfers, value: Lookup, element: Lookup, whole: Lookup) -> ByteTotal:
    total: Poly = {}
    for transfer in transfers:
        total = add(total, _bytes(transfer, value, element, whole))
    constant = total.get((), 0) if set(total) <= {()} else None
    return ByteTotal(len(transfers), render(total), constant)


def _bytes(transfer: Transfer, value: Lookup, element: Lookup, whole: Lookup) -> Poly:
    fn, name = transfer.function, transfer.array
    unknown = {(f"bytes({name})",): 1}
    if transfer.count == "":
        size = whole(fn, name)
        return {(): size} if size else unknown
    size = element(fn, name)
    if transfer.count is None or not size:
        return unknown
    try:
        count = _poly(transfer.count)
    except NotPoly:
        return {(f"({transfer.count})",): size}     # a call (``v.size()``): one atom
    return mul(_known(count, lambda atom: _atom(atom, fn, value)), {(): size})


_KEYWORD = "_kw_"


def _poly(text: str) -> Poly:
    """:func:`poly` of a C expression whose names may be Python keywords (``in``, ``from``,
    ``lambda``): they are renamed for the parse and back in the atoms."""
    return {tuple(a.replace(_KEYWORD, "") for a in key): c
            for key, c in poly(_renamed(text)).items()}


def _renamed(text: str) -> str:
    return re.sub(r"[A-Za-z_]\w*", lambda m: _KEYWORD + m.group(0)
                  if keyword.iskeyword(m.group(0)) else m.group(0), text)


def _known(p: Poly, atom_value: Callable[[str], int | None]) -> Poly:
    """``p`` with every atom whose value is known replaced by it."""
    out: Poly = {}
    for key, coeff in p.items():
        rest = []
        for atom in key:
            number = atom_value(atom)
            if number is None:
                rest.append(atom)
            else:
                coeff *= number
        out = add(out, {tuple(rest): coeff} if coeff else {})
    return out


def _atom(atom: str, function: str | None, value: Lookup) -> int | None:
    """An atom's value: a name's, or an opaque ``(a / b)`` / ``(a % b)`` of known parts
    (C's integer division, truncating toward zero)."""
    if not atom.startswith("("):
        return value(function, atom)
    try:
        node = ast.parse(_renamed(atom), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, (ast.Div, ast.Mod)):
        return None
    parts = []
    for side in (node.left, node.right):
        try:
            known = _known(_poly(ast.unparse(side)), lambda a: _atom(a, function, value))
        except NotPoly:
            return None
        if set(known) - {()}:
            return None
        parts.append(known.get((), 0))
    left, right = parts
    if right == 0:
        return None
    quotient = abs(left) // abs(right) * (1 if (left >= 0) == (right > 0) else -1)
    return quotient if isinstance(node.op, ast.Div) else left - right * quotient
