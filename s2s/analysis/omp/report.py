"""Which target constructs end up with every pointer they use mapped, and why the others don't.

A pointer used inside a target region without a mapping is mapped implicitly as a zero-length
section: on a discrete GPU the kernel then dereferences a host address (on clang's host device
it silently works, which is why such programs seem fine). ``s2s omp`` must never leave that
unsaid: after planning, every construct is either *mapped* (each pointer it dereferences is
named by a map clause of the construct, by the data region planned around it, or by the
clauses the plan adds to it) or *left*, with the pointers and the reason, which the pass turns
into an ``omp-left-unmapped`` warning and the summary's count.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.omp.guards import directive_chain
from s2s.analysis.omp.hidden_uses import (
    copied_sources,
    partly_mapped_scalars,
    routine_globals,
    struct_pointers,
)
from s2s.analysis.omp.plan import OmpPlan, RegionPlan
from s2s.analysis.omp.pointer_arrays import is_array_of_pointers
from s2s.analysis.omp.state import norm_text
from s2s.model import SourceSpan, TranslationUnit


@dataclass(frozen=True)
class LeftConstruct:
    """A target construct that still uses ``pointers`` without a mapping, and why."""

    span: SourceSpan
    pointers: tuple[str, ...]
    reason: str
    #: the scalar members among ``pointers`` (``P->h``) of a struct that the construct's
    #: mapping maps member by member: no zero-length section, a device copy with no value
    scalars: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ConstructReport:
    mapped: int
    left: tuple[LeftConstruct, ...]


def construct_report(model: TranslationUnit, plan: OmpPlan) -> ConstructReport:
    """Sort every target construct of ``model`` into mapped and left (see the module doc)."""
    mapped, left = 0, []
    if _unified_shared_memory(model):
        # ``requires unified_shared_memory``: host pointers are valid on the device, nothing
        # has to be mapped for a kernel to be right (mapping is only an optimisation there)
        return ConstructReport(len(model.target_regions), ())
    data_names = _data_names(model)
    hand_mapped = _hand_mapped_callees(plan, data_names)
    entered = _entered_names(model) | {_last_name(e.name) for e in plan.global_entries}
    named_in: dict[str | None, tuple[set[str], list]] = {}     # per function
    by_region: dict[int, tuple] = {}                              # per region (by id)
    for index, directive in enumerate(model.directives):
        if not directive.is_target_region:
            continue
        own = data_names.get(directive.function, set())
        own = own | _aliases(model, directive.function, own)
        escaped = plan.escaped.get(directive.function)
        found, scalars = ((), set()) if directive.function in hand_mapped else \
            _unmapped_pointers(model, index, plan, named_in, by_region, escaped is None)
        missing = tuple(p for p in found if _last_name(p) not in entered and
                        _last_name(p) not in own)
        if not missing:
            mapped += 1
            continue
        left.append(LeftConstruct(directive.span, missing,
                                  escaped or _reason(model, plan, directive.function, missing),
                                  frozenset(scalars & set(missing))))
    return ConstructReport(mapped, tuple(left))


def _aliases(model: TranslationUnit, function: str | None, names: set[str]) -> set[str]:
    """Pointers of ``function`` that only ever hold one of ``names`` (storage its own data
    directives map) without an offset: ``double *r = result;`` used by kernels inside a
    ``target data map(... result[0:n])``. The runtime finds their storage present, so they
    are mapped (an assignment from anything else, or an offset, and they are not)."""
    if not names or function is None:
        return set()
    sources: dict[str, set] = {}
    for copy in model.in_function("pointer_copies", function):
        source = _last_name(copy.source) if copy.source and not copy.offset else None
        sources.setdefault(_last_name(copy.target), set()).add(source)
    # the greatest set whose members hold only mapped names or each other (a swap cycle
    # ``s = t; t = r; r = s`` keeps all three)
    found = {target for target in sources if target not in names}
    shrank = True
    while shrank:
        shrank = False
        for target in sorted(found):
            if not sources[target] <= names | found:
                found.discard(target)
                shrank = True
    return found


def _unified_shared_memory(model: TranslationUnit) -> bool:
    return any(d.words[:1] == ("requires",) and
               any(c.name == "unified_shared_memory" for c in d.clauses) for d in model.directives)


def _data_names(model: TranslationUnit) -> dict[str | None, set[str]]:
    """Per function, the names (last member component) its hand-written ``target data`` and
    ``target enter data`` directives map."""
    out: dict[str | None, set[str]] = {}
    for d in model.directives:
        if d.words[:1] == ("target",) and d.words[1:2] in (("data",), ("enter",)):
            out.setdefault(d.function, set()).update(
                _last_name(item.base) for clause in d.maps for item in clause.items)
    return out


def _hand_mapped_callees(plan: OmpPlan, data_names: dict) -> set[str | None]:
    """Functions called under hand-written data directives that the plan kept (no region of
    its own there): their pointers may carry other names than the caller's clauses, so those
    mappings are taken as the user's (checked at run time by ``s2s verify``, not here). The
    function holding the directives is checked name by name instead."""
    planned = {r.function for r in plan.regions}
    out: set[str | None] = set()
    for root, reach in plan.reach.items():
        holders = reach & set(data_names)
        if root not in planned and holders:
            out |= reach - holders
    return out


def _entered_names(model: TranslationUnit) -> set[str]:
    """Names (last member component) of storage that a ``target enter data`` anywhere in the
    file maps: an unstructured mapping outlives its function (a class's constructor maps
    ``this->a`` through a local ``a``, its methods' kernels use it). Trusted by name: the
    user's mapping is checked at run time by ``s2s verify``, not here."""
    return {_last_name(item.base) for d in model.directives if d.words[:2] == ("target", "enter")
            for clause in d.maps for item in clause.items}


def _last_name(path: str) -> str:
    return norm_text(path).replace("->", ".").rpartition(".")[2]


def _unmapped_pointers(model: TranslationUnit, index: int, plan: OmpPlan,
                       named_in: dict, by_region: dict, planned: bool = True
                       ) -> tuple[tuple[str, ...], set[str]]:
    """The pointers the construct uses that no clause maps: its own clauses, and where
    ``planned`` the regions and objects of the plan that cover its function; and the
    partly mapped scalar members among them."""
    by_directive = model.cached("omp report refs", lambda: _refs_by_directive(model))
    function = model.directives[index].function
    refs = by_directive.get(index, ())
    used = sorted({ref.array for ref in refs
                   if (ref.pointer or ref.dependent or
                       is_array_of_pointers(model, function, ref.array))
                   and not ref.region_local} | copied_sources(model, index, refs)
                  | routine_globals(model, index))
    named = {norm_text(item.base) for d in directive_chain(model, index)
             for clause in d.clauses for item in clause.items}
    if not planned:
        used += sorted(struct_pointers(refs, named))
        return tuple(name for name in used if norm_text(name) not in named), set()
    for mapping in plan.objects:
        named |= {norm_text(name) for where, name in mapping.device_names if where == function}
    if function not in named_in:
        named_in[function] = _region_names(plan, function, by_region)
    from_regions, explicit = named_in[function]
    if (function, "copied") not in named_in:
        named_in[function, "copied"] = not any(
            r.function == function for r in _covering(plan, function))
    if named_in[function, "copied"]:
        # a region of a caller holds the storage, but this kernel sees a copy of the struct
        from_regions = from_regions - by_value_members(model, function, used)
    named |= from_regions
    for clauses in explicit:
        named |= clauses.get(model.directives[index].span, set())
    scalars = partly_mapped_scalars(refs, named)
    used += sorted(scalars | struct_pointers(refs, named))
    return tuple(name for name in used if norm_text(name) not in named), scalars


def by_value_members(model: TranslationUnit, function: str | None, names) -> set[str]:
    """The member paths among ``names`` (``t.mu``) whose struct is a parameter of
    ``function`` passed by value: the one mechanism for constructs that reach mapped
    storage through a copy of a struct. ``static double smooth(Mesh m, int sweeps)`` runs
    kernels on ``m.acc[n]``; a kernel captures ``m`` as a copy of its bits: the member
    pointers it holds are host addresses, translated only by a map clause of the kernel
    itself that names the member (the data region of a caller maps the caller's struct,
    another object; a clause of the kernel, the safety net's ``map(tofrom:
    m.acc[0:m.nnode])``, then finds the storage present and moves nothing but attaches the
    device address). LIBOMPTARGET_INFO does not show these pointers: without the clause a
    GPU reads host addresses while the host device works. (A region of ``function``'s own
    maps the members through ``m`` itself: the report asks only where none does.)"""
    host = model.function(function) if function else None
    if host is None:
        return set()
    copies = {p.name for p in host.params if not p.is_pointer and "&" not in p.type
              and "*" not in p.type and "[" not in p.type}
    out = set()
    for name in names:
        root, dot, _member = norm_text(name).partition(".")
        if dot and root in copies and "->" not in root:
            out.add(norm_text(name))
    return out


def _region_names(plan: OmpPlan, function: str | None, by_region: dict) -> tuple[set[str], list]:
    """What the planned regions covering ``function`` name there: (arrays and handles where
    ``function`` is the region's own, its device names there; each region's explicit clause
    names per directive span). A name is a variable of one function: a callee's local
    ``a`` is not the region's ``a`` (matched by spelling, a kernel on the callee's own
    storage was counted mapped while it used an unmapped pointer). Computed once
    per function, from each region's names indexed once (``by_region``): per directive, or
    per function over every region's lists, the scan was quadratic (5,000 regions: 25
    million steps)."""
    named: set[str] = set()
    explicit: list = []
    for region in _covering(plan, function):
        if id(region) not in by_region:
            by_region[id(region)] = _names_of(region)
        base, device, clauses = by_region[id(region)]
        if region.function == function:
            named |= base   # (the region's names are its own function's: a callee's ``a`` is
            #                another variable, mapped only where ``device`` says so)
        named |= device.get(function, set())
        explicit.append(clauses)
    return named, explicit


def _names_of(region: RegionPlan) -> tuple[set[str], dict, dict]:
    """A region's names: (arrays and handles; device names per function; explicit clause
    names per directive span)."""
    base = {norm_text(a.name) for a in region.arrays} | \
        {norm_text(member) for member, _local in region.handles}
    device: dict = {}
    for where, name in region.device_names:
        device.setdefault(where, set()).add(norm_text(name))
    clauses: dict = {}
    for span, clause in region.explicit:
        clauses.setdefault(span, set()).add(
            norm_text(clause.split(":", 1)[1].split("[", 1)[0].strip(" )")))
    return base, device, clauses


def _refs_by_directive(model: TranslationUnit) -> dict[int, list]:
    out: dict[int, list] = {}
    for ref in model.array_refs:
        if ref.directive is not None:
            out.setdefault(ref.directive, []).append(ref)
    return out


def _covering(plan: OmpPlan, function: str | None) -> list[RegionPlan]:
    """The planned data regions whose statements run ``function``'s device work."""
    return [r for r in plan.regions if function in plan.reach.get(r.function, ())]


def _reason(model: TranslationUnit, plan: OmpPlan, function: str | None,
            missing: tuple[str, ...]) -> str:
    roots = sorted(root for root, reach in plan.reach.items() if function in reach)
    for root in roots:
        if root in plan.left:
            return f"the data mapping of '{root}' was left as written ({plan.left[root]})"
    if roots and any(r.function in roots for r in plan.regions) and all(
            by_value_members(model, function, [name]) for name in missing):
        return (f"the data region planned in '{roots[0]}' holds the storage of "
                f"{', '.join(repr(m) for m in missing)}, but the kernel reaches it through a "
                "struct passed by value (a copy of host addresses): its own clause attaches "
                "the device copies (and moves nothing there)")
    for message, ident, _span in plan.warnings:
        if ident == "omp-not-mapped" and any(f"'{name}'" in message for name in missing):
            return message
    if not roots:
        return "no function with device work reaches it"
    if not any(r.function in roots for r in plan.regions):
        return f"no data region was planned in '{roots[0]}'"
    return "the planned data region does not map it"
