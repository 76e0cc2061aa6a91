"""The arrays of one OpenMP data region: their map types, and what the directives name.

After the copies are solved (omp.solver), each tracked array gets its entry and exit map
types and, where only part of it needs to move, ``target update`` items at the region's entry
or exit instead (:func:`map_arrays`). Kernels that use a pointer without a map clause get an
explicit one (:func:`explicit_sections`), and struct members may be mapped through local
handles (:func:`member_handles`).

Kept apart from the planner (omp.plan), which decides whether a region is planned at all,
because this is the per-array part: it reads the solved dataflow's exit state and the
coverage run (omp.cover), and decides nothing about the region itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.analysis.omp.cover import entry_coverage
from s2s.analysis.omp.facts import contains, drop_contained, guard_facts
from s2s.analysis.omp.guards import directive_chain
from s2s.analysis.omp.ir import Access, Copy, FunctionIR, Node, called_functions
from s2s.analysis.omp.place import same_section, source_texts
from s2s.analysis.omp.sections import host_sections
from s2s.analysis.omp.sizes import (
    alias_groups,
    entry_sections,
    exact_aliases,
    first_use,
    returned_from_calls,
    returned_reads,
)
from s2s.analysis.omp.solver import Solver, entry_state
from s2s.analysis.omp.state import State, norm_text
from s2s.analysis.polynomial import disjoint, merge_adjacent
from s2s.model import SourceSpan, TranslationUnit


@dataclass(frozen=True)
class MappedArray:
    """One array of the data region: ``section`` is ``[lo:len]`` text ('' for a whole
    static array); ``enter`` is ``to`` or ``alloc``, ``exit`` ``from`` or ``release``."""

    name: str
    section: str
    enter: str
    exit: str

    @property
    def structured_type(self) -> str:
        return {("to", "from"): "tofrom", ("to", "release"): "to",
                ("alloc", "from"): "from", ("alloc", "release"): "alloc"}[self.enter, self.exit]


def map_arrays(solver: Solver, ir: FunctionIR, block: Node, live: set[str], to_labels: set[str],
               updates: list, exit_state: State | None
               ) -> tuple[list[MappedArray], list[str], list[str], list[str]]:
    """The mapped arrays of a solved region (``solver``: its function, statements, arrays and
    sections; ``block`` the block they lie in), with the ``target update`` items at its exit
    and after its entry that stand for part of a map, and why each entry item.

    ``exit_state`` is the dataflow's state where the region ends, ``live`` the arrays the host
    reads afterwards, ``to_labels`` those the device needs from the host at entry and
    ``updates`` the copies placed inside. An array comes back at the exit (``from``) when its
    host copy is stale there and it is live; when the elements the host reads afterwards, or
    those kernels wrote, are known, only they come back, as ``target update from`` items. An
    array goes in (``to``) when it is in ``to_labels``; when only some elements matter (the
    host set only those of a fresh buffer, or the device reads only those before it writes
    them, omp.cover), only they go over, as ``target update to`` items after an ``alloc``."""
    model, irs, function, nodes = solver.model, solver.irs, solver.function, solver.nodes
    tracked, lengths, source, start = solver.tracked, solver.lengths, solver.source, solver.start
    text = source_texts(source)
    arrays, exit_updates, entry_updates, entry_reasons = [], [], [], []
    after = block.children[block.children.index(nodes[-1]) + 1:] + _continuation(block)
    coverage = entry_coverage(solver, entry_state(model, function, start, to_labels), updates)
    groups = alias_groups(model, function, 0, 0)
    facts = guard_facts(model, function, start)
    names = ir_names(ir)
    through = _read_back_through_returns(solver, live, exit_state)
    # a pointer a call returned may be any of its arguments: whatever the host reads through
    # it afterwards, it may read all of them (no element read-back by their own names)
    returned = returned_from_calls(model, function, nodes[-1].stmt.span.end)
    exit_updates += list(dict.fromkeys(f"{p}{section}" for p, section in through.values()))
    for label in sorted(tracked, key=lambda n: (first_use(model, n), n)):
        fresh_host = exit_state is None or "H" in exit_state.get_valid(label)
        exit_type = "from" if (label in live and not fresh_host and label not in through) \
            else "release"
        exit_sections = [lengths[label] or None]
        same = exact_aliases(model, function, label, start)
        if exit_type == "from" and (label in names or names & same) and \
                not groups.get(label, {label}) & returned:
            # Only the elements the host reads afterwards come back, when they are known,
            # and of those only the ones kernels wrote since both copies were fresh (also
            # when the function names the array only through an alias: ``x = b.x``).
            group = frozenset(groups.get(label, ()))
            parts = host_sections(after, label, text, aliases=group, same=same, irs=irs)
            if parts and any(same_section(label + p, label + lengths[label]) for p in parts):
                parts = None
            written = exit_state.get_dirty(label) if exit_state is not None else None
            if written:
                written = merge_adjacent(sorted(written))
            if written and any(same_section(label + w, label + lengths[label]) for w in written):
                written = None  # kernels may have written all of it
            if written is not None and parts is not None:
                parts = [p for p in parts if not all(disjoint(p, w) for w in written)]
            elif written and parts is None:
                parts = sorted(written)
            if parts is not None:
                exit_type = "release"
                parts = merge_adjacent(drop_contained(parts, facts, ir.definitions))
                if written is not None:
                    parts = _beside_written(parts, written, facts, ir.definitions)
                exit_updates += [label + p for p in parts]
                exit_sections = list(parts)
        if exit_type == "release" and exit_sections == [lengths[label] or None]:
            exit_sections = []
        enter_type = "to" if label in to_labels else "alloc"
        held = entry_sections(model, function, label, start, source) \
            if enter_type == "to" else None
        # Only the elements the device reads before it writes them need to go over.
        exposed = coverage.entry_copy(label, exit_sections) if enter_type == "to" else None
        why = "the host set only these elements of the fresh buffer"
        if exposed is not None and (held is None or len(exposed) <= len(held)):
            held, why = exposed, "the device reads these elements before it writes them; " \
                "it writes the others first"
        if held is not None:  # only these elements go over (the others are never read)
            enter_type = "alloc"
            entry_updates += [label + part for part in held]
            entry_reasons += [why] * len(held)
        arrays.append(MappedArray(label, lengths[label], enter_type, exit_type))
    return arrays, exit_updates, entry_updates, entry_reasons


def _beside_written(parts: list[str], written: list[str], facts: dict[str, int],
                    definitions: dict[str, str]) -> list[str]:
    """``parts`` without those whose copy-back another part already makes: the device wrote
    only the ``written`` sections (the exit state's dirty set, complete), so the elements of
    a part that come back stale lie in them; where the other parts hold every written
    section, those elements come back with them. ``x[0:n]`` then ``x[n/2:1]`` after kernels
    that wrote ``x[0:n]``: one copy, with no fact on ``n`` (for ``n <= 0`` nothing was
    written, so ``x[0]`` on the host is current). Sections compare as written too (all of
    them are read at the region's exit): a definition that is no polynomial (``n =
    A.rows()``) leaves ``n`` a name."""
    kept = list(parts)
    for part in parts:
        others = [q for q in kept if q is not part]
        if others and all(any(contains(q, w, facts, definitions) or contains(q, w, facts, {})
                              for q in others) for w in written):
            kept = others
    return kept


def explicit_sections(model: TranslationUnit, function, nodes: list[Node], lengths, state,
                      arrays: list[MappedArray]) -> list[tuple[SourceSpan, str]]:
    """``map(tofrom: p[0:n])`` for pointers a target region of the region uses without a
    map clause, where the kernel's implicit mapping would not find the storage: a struct
    member path, a class member (the implicit map of ``this`` copies the host's pointer), a
    global, another name for a mapped array. A pointer variable of the function's own (a
    parameter or local, no array) that the region maps under its own name needs none: its
    storage is present inside the data region and the implicit zero-length section finds it
    there, so the clause would move nothing (the copies and bytes of a run are the same with
    and without it, as in an expert's port, which writes none), and a second run reads the
    region's map of that name as the kernel's."""
    held = {norm_text(a.name) for a in arrays}
    out = []
    for top in nodes:
        for node in top.walk():
            if node.kind != "kernel":
                continue
            directive = model.directives[node.directive]
            mapped = {norm_text(item.base) for d in directive_chain(model, node.directive)
                      for clause in d.clauses for item in clause.items}
            missing = []
            for event in node.events:
                if not isinstance(event, Access) or norm_text(event.name) in mapped:
                    continue
                labels = state.get_pts(event.name) if state is not None else {event.name}
                sections = {lengths.get(label) for label in labels}
                if len(sections) == 1 and next(iter(sections)) and event.name not in missing:
                    missing.append(event.name)
                    mapped.add(norm_text(event.name))
                    if norm_text(event.name) not in held or \
                            not _own_pointer(model, function, event.name):
                        out.append((directive.span,
                                    f"map(tofrom: {event.name}{next(iter(sections))})"))
    return out


def _own_pointer(model: TranslationUnit, function, name: str) -> bool:
    """Whether ``name`` is only ever a pointer parameter or pointer local of ``function``
    (every mention, ``VarUse``: not a member, a global or one of two variables of the name)
    and no array the function declares (an array's implicit map copies all of it)."""
    mentions = [u for u in model.in_function("var_uses", function.name) if u.name == name]
    if not mentions or not all(u.local and u.pointer and u.decl == mentions[0].decl
                               for u in mentions):
        return False
    return not any(a.name == name and a.function == function.name and
                   a.kind in ("static_array", "vla") for a in model.allocations)


def redundant_maps(model: TranslationUnit, nodes: list[Node], arrays, explicit,
                   swapped: bool) -> tuple[tuple[SourceSpan, tuple[SourceSpan, ...]], ...]:
    """(directive, clauses) per kernel inside the region (in its own function): the map
    clauses the region makes moot: every item names a mapped array by the same name with the same section, so the
    storage is present and the clause moves nothing (``always`` and ``delete`` clauses do,
    and stay). Left out where pointers are swapped inside the region (the name may then
    stand for another array) or where a clause is added to the same kernel."""
    if swapped:
        return ()
    mapped = {norm_text(a.name): norm_text(a.name + a.section) for a in arrays}
    touched = {span.start for span, _ in explicit}
    out = []
    for top in nodes:
        for node in top.walk():
            if node.kind != "kernel":
                continue
            for directive in directive_chain(model, node.directive):
                if not directive.is_target_region or directive.span.start in touched or \
                        not directive.span.editable:
                    continue
                moot = tuple(clause.span for clause in directive.maps
                             if clause.clause == "map" and clause.items and
                             clause.map_type in ("to", "from", "tofrom", "alloc") and
                             not {"always", "present"} & set(clause.modifiers) and
                             all(mapped.get(norm_text(item.base)) == norm_text(item.text)
                                 for item in clause.items))
                if moot:
                    out.append((directive.span, moot))
    return tuple(out)


def member_handles(irs: dict[str, FunctionIR], nodes: list[Node], device_uses: dict,
                   tracked: frozenset, source: bytes) -> tuple[tuple[str, str], ...]:
    """Local pointers for struct members the kernels reach only through other pointers.

    ``map(to: d->x[0:n])`` also attaches the device address to the member of a device copy of
    ``*d`` (one more 8-byte copy per member, each time the mapping is made) although no
    kernel dereferences ``d`` on the device. Mapping ``s2s_x[0:n]``, a local holding the same
    address, maps the same storage without it. Only for members no function assigns (the
    local would go stale) and that no kernel names through the member path itself."""
    # the region's statements and every function they call
    roots = list(nodes) + [irs[name].root for name in called_functions(irs, nodes)]
    events = [e for root in roots for n in root.walk() for e in n.events + n.cond + n.step]
    assigned = {re.split(r"->|\.", e.target)[-1] for e in events
                if isinstance(e, Copy) and re.search(r"->|\.", e.target)}
    taken = set(re.findall(rb"[A-Za-z_]\w*", source))
    out = []
    for label in sorted(tracked):
        path = re.fullmatch(r"[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*(?:->|\.)([A-Za-z_]\w*)",
                            label)
        uses = device_uses.get(label, ())
        if path is None or not uses or path.group(1) in assigned or \
                any(re.search(r"->|\.", use[1]) for use in uses):
            continue
        out.append((label, _fresh_name(path.group(1), taken)))
    return tuple(out)


def vector_handles(vectors, source: bytes, handles=()) -> tuple[tuple[str, str], ...]:
    """A local pointer per mapped ``std::vector`` (``s2s_v`` holding ``v.data()``): a map
    clause takes an addressable array section, which ``v`` is not. ``handles``: the region's
    other handles, whose names are taken too."""
    taken = set(re.findall(rb"[A-Za-z_]\w*", source)) | {h.encode() for _, h in handles}
    return tuple((label, _fresh_name(re.sub(r"\W+", "_", label), taken)) for label in vectors)


def _fresh_name(base: str, taken: set) -> str:
    """``s2s_<base>``, or ``s2s_<base>2``, ... : a name nothing in the file uses (recorded)."""
    name, suffix = f"s2s_{base}", 1
    while name.encode() in taken:
        suffix += 1
        name = f"s2s_{base}{suffix}"
    taken.add(name.encode())
    return name


def ir_names(ir: FunctionIR) -> set[str]:
    """Names the function itself accesses (labels reached only through callees excluded)."""
    return {e.name for n in ir.root.walk() for e in n.events + n.cond + n.step
            if isinstance(e, Access)} | {e.target for n in ir.root.walk()
                                         for e in n.events if isinstance(e, Copy)}


def _continuation(block: Node) -> list[Node]:
    """The statements that may run after the region ends (later siblings in every
    enclosing block)."""
    out: list[Node] = []
    node = block
    while node.parent is not None:
        parent = node.parent
        if parent.kind == "seq":
            out += parent.children[parent.children.index(node) + 1:]
        node = parent
    return out


def _read_back_through_returns(solver: Solver, live: set[str], exit_state
                               ) -> dict[str, tuple[str, str]]:
    """Labels the host reads after the region only through a pointer a call returned inside
    it (omp.sizes.returned_reads) -> (that pointer, the section): one ``target update from``
    through the pointer replaces a ``from`` of every buffer the call might have returned.
    All candidates must have the same section (the pointer's count is theirs)."""
    end = solver.nodes[-1].stmt.span.end
    out = {}
    for pointer, labels in returned_reads(solver.model, solver.function, solver.start, end,
                                          solver.tracked, live).items():
        sections = {solver.lengths.get(label) for label in labels}
        stale = [label for label in labels if exit_state is not None
                 and "H" not in exit_state.get_valid(label)]
        if len(sections) != 1 or not next(iter(sections)) or not stale:
            continue
        section = next(iter(sections))
        out.update({label: (pointer, section) for label in labels})
    return out

