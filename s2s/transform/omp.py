"""``s2s omp``: turn an OpenMP data-mapping plan into edits of the source.

Every directive goes on its own line with the indentation of the statement it precedes.
A data region over one statement is a structured ``target data``; over several statements,
or when pointers of the region are reassigned inside it (double-buffer swaps: the exit copy
must follow the pointer's value at the end), it is a ``target enter data`` / ``target exit
data`` pair. Explanations (``--explain``) are notes with id ``omp-explain``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from s2s.diagnostics import Diagnostic
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.frontend.extract import Loaded
from s2s.model import SourceSpan, Stmt
from s2s.transform import registry
from s2s.transform.check import EditGroup
from s2s.transform.omp_macro import (
    enter_exit_edits,
    stands_alone,
    without_macro_clauses,
    without_member_clauses,
)

if TYPE_CHECKING:   # the analysis is imported by the first program with OpenMP directives
    from s2s.analysis.omp.place import PlannedUpdate
    from s2s.analysis.omp.plan import OmpPlan, RegionPlan
    from s2s.analysis.omp.report import LeftConstruct

EXPLAIN_ID = "omp-explain"
INVALID_ID = "omp-rewrite-invalid"
LEFT_ID = "omp-left-unmapped"
PER_CONSTRUCT_ID = "omp-per-construct"
#: the summary's counts of target constructs: mapped by the program-wide plan, mapped by
#: the safety net's clauses of their own (omp.fallback), still using an unmapped pointer
MAPPED_COUNT = "target regions mapped"
PER_CONSTRUCT_COUNT = "mapped per construct"
#: the count ``--strict`` fails on
LEFT_COUNT = "left unmapped"
#: target constructs written through macros (s2s.frontend.openmp.macros); ``--strict`` fails on it
MACRO_COUNT = "left in macros"


#: the group of the map clauses of function-local arrays (one per file, edits or none)
LOCAL_MAPS = "the map clauses of function-local arrays and static tables"


def run_omp(loaded: Loaded, not_compiling: dict[tuple, str] | None = None) -> PassOutput:
    """The plan's edits in groups, its diagnostics and counts. ``not_compiling``: subjects of
    groups (a function's data region, a class's objects, a construct's own clauses) whose
    rewrite an earlier check dropped, each with the reason (:func:`_replan`): they are
    planned as refused, so the counts are those of the rewrite that is emitted."""
    not_compiling = not_compiling or {}
    model, source = loaded.model, loaded.source
    if model.language == "cuda":
        return PassOutput()
    if not model.directives and not model.macro_directives:
        # nothing to map (a file's outline, s2s.frontend.extract.load): what the plan of a
        # program without OpenMP gives, without importing the analysis (issue 30, item 4)
        return PassOutput((), (), (EditGroup(LOCAL_MAPS, (), None, INVALID_ID),),
                          check_compiles=True, counts=_counts(0, 0, 0))
    from s2s.analysis.omp.accessor_accesses import with_accessor_accesses
    from s2s.analysis.omp.accessor_counts import with_accessor_counts
    from s2s.analysis.omp.element_copies import with_element_copies
    from s2s.analysis.omp.macro_constructs import macro_spans
    from s2s.analysis.omp.method_members import with_method_members
    from s2s.analysis.omp.out_members import with_callee_members
    from s2s.analysis.omp.plan import plan_file
    from s2s.analysis.omp.report import construct_report
    from s2s.analysis.omp.scope import out_of_scope_edit
    from s2s.transform.omp_objects import object_edits, object_notes

    model = with_callee_members(model, source)   # ``init(&mesh)`` allocating mesh.u
    model = with_accessor_counts(model)   # ``int *rp = A.row_ptr();`` (a vector's data)
    model = with_accessor_accesses(model)  # ``d.list(k) = x`` after ``l = d.lists();``
    model = with_method_members(model)    # ``h_U = malloc(...)`` in a method the constructor calls
    model = with_element_copies(model)    # ``auto p0 = poses[0];`` (elements allocated in a loop)
    plan = plan_file(model, source, frozenset(
        key[1] for key in not_compiling if key[0] == "global"))
    groups, notes = [], []
    subjects: list[tuple] = []      # what each group maps (the key of ``not_compiling``)
    warnings = list(plan.warnings)
    macro = macro_spans(model)
    # first: a region's directive may go to the same place, after the entry
    _global_entry_groups(source, plan, groups, subjects, notes)
    kept = []
    for region in plan.regions:
        if ("region", region.function) in not_compiling:
            plan.left.setdefault(region.function, not_compiling["region", region.function])
            continue
        region = without_member_clauses(without_macro_clauses(region, macro))
        before = {a.name for a in region.arrays} | {n for _, n in region.device_names}
        region, refused = _with_companions(model, source, region)
        if refused is not None:
            warnings.append((f"the data mapping of '{region.function}' is left to each "
                             f"construct: {refused}", "omp-not-mapped", region.first.span))
            plan.left.setdefault(region.function, refused)
            continue
        blocked = _not_editable(region, macro)
        if blocked is not None:
            origin = f"macro '{blocked.macro}'" if blocked.macro else \
                f"template '{blocked.template}'"
            warnings.append((f"the data mapping of '{region.function}' would have to be edited "
                             f"inside {origin}; left as written", "omp-in-macro", blocked))
            # its constructs are not mapped by it: the report and the safety net see that
            plan.left.setdefault(region.function, f"its edits would land inside {origin}")
            continue
        edits = tuple(_region_edits(region, source, loaded.path, model.language))
        stray = out_of_scope_edit(model, edits)
        if stray is not None:
            why = f"its clauses would name '{stray[0]}', which is no variable in scope there"
            warnings.append((f"the data mapping of '{region.function}' is left to each "
                             f"construct: {why}", "omp-not-mapped", region.first.span))
            plan.left.setdefault(region.function, why)
            continue
        kept.append(region)
        mapped_now = ({a.name for a in region.arrays} |
                      {n for _, n in region.device_names}) - before
        warnings = [w for w in warnings if not _said_unmapped(w, mapped_now)]
        subjects.append(("region", region.function))
        groups.append(EditGroup(f"the data mapping of '{region.function}'", edits,
                                region.first.span, INVALID_ID))
        notes += _explain(region)
    plan.regions = kept
    plan.objects = [m for m in plan.objects if ("object", m.cls) not in not_compiling]
    for mapping in plan.objects:
        if mapping.hand_written:
            continue
        subjects.append(("object", mapping.cls))
        groups.append(EditGroup(f"the mapping of the vectors of '{mapping.cls}' per object",
                                tuple(object_edits(mapping, source)), mapping.class_span,
                                INVALID_ID))
        notes += object_notes(mapping, EXPLAIN_ID)
    notes += [Diagnostic.note(why, EXPLAIN_ID, span) for why, span in plan.per_call]
    subjects.append(("locals",))
    groups.append(EditGroup(LOCAL_MAPS, () if ("locals",) in not_compiling else
                            tuple(_local_edits(plan, source, loaded.path)), None, INVALID_ID))
    notes += [Diagnostic.note(f"{m.clause}: {m.reason}", EXPLAIN_ID, m.directive)
              for m in plan.local_maps]
    notes += [Diagnostic.note(f"target enter data map(always, to: {e.name}) once: {e.reason}",
                              EXPLAIN_ID, e.last.span) for e in plan.static_entries]
    report = construct_report(model, plan)
    per_construct, still_left = _safety_net(model, source, report.left)
    per_construct, still_left = _without_refused(per_construct, still_left, report.left,
                                                 not_compiling)
    for construct in per_construct:
        subjects.append(("construct", construct.span))
        groups.append(EditGroup(f"the map clauses of the target region at line "
                                f"{construct.span.line}", construct.edits or (Edit(
                                    loaded.path, _pragma_end(source, construct.span.end), 0,
                                    " " + " ".join(construct.clauses)),),
                                construct.span, INVALID_ID))
        if construct.complete:
            warnings.append((f"this target region is mapped per construct ("
                             f"{' '.join(construct.clauses)}), the range its kernel touches: "
                             f"{construct.reason}", PER_CONSTRUCT_ID, construct.span))
    for left in still_left:
        warnings.append((f"this target region still {_left_uses(left)}: {left.reason}",
                         LEFT_ID, left.span))
    diagnostics = [Diagnostic.warning(message, id, span) for message, id, span in warnings]
    # Checked by the driver: a group whose directives do not parse is left as written.
    edits = tuple(e for group in groups for e in group.edits)
    counts = _counts(report.mapped, sum(c.complete for c in per_construct), len(still_left))
    in_macros = sum(1 for m in model.macro_directives if m.is_target)
    if in_macros:  # written through _Pragma macros: unseen, so never called mapped
        counts += ((MACRO_COUNT, in_macros),)
    return PassOutput(edits, tuple(diagnostics + notes), tuple(groups), check_compiles=True,
                      counts=counts, replan=functools.partial(_replan, loaded, not_compiling,
                                                              tuple(subjects)))


def _global_entry_groups(source: bytes, plan: OmpPlan, groups: list, subjects: list,
                         notes: list) -> None:
    """The groups of the ``target enter data`` lines of global storage that device routines
    use (omp.global_entries), each a subject of its own."""
    for entry in plan.global_entries:
        clause = f"map({entry.map_type}: {entry.name}[0:{entry.count}])"
        subjects.append(("global", entry.name))
        groups.append(EditGroup(f"the entry of global '{entry.name}'", (_line_after(
            entry.after, source, [f"#pragma omp target enter data {clause}"]),),
            entry.after.span, INVALID_ID))
        notes.append(Diagnostic.note(f"target enter data {clause}, never released: "
                                     f"{entry.reason}", EXPLAIN_ID, entry.after.span))


def _left_uses(left: LeftConstruct) -> str:
    """What a construct left still uses, each kind as what it is on the device: a pointer
    is captured as a zero-length section (a host address on a GPU); a scalar member of a
    struct mapped member by member has a device copy that no clause gave a value."""
    pointers = [f"'{p}'" for p in left.pointers if p not in left.scalars]
    scalars = [f"'{p}'" for p in left.pointers if p in left.scalars]
    parts = []
    if pointers:
        parts.append(f"uses {', '.join(pointers)} without a mapping (an implicit zero-length "
                     "section: wrong on a GPU)")
    if scalars:
        parts.append(f"reads {', '.join(scalars)} with no map clause, "
                     f"{'a member' if len(scalars) == 1 else 'members'} of a struct mapped "
                     "member by member (the device copy holds no value for "
                     f"{'it' if len(scalars) == 1 else 'them'}: wrong on any device)")
    return " and ".join(parts)


def _said_unmapped(warning: tuple, names: set[str]) -> bool:
    """Whether ``warning`` is the plan's that one of ``names`` keeps its per-kernel
    mapping (omp.plan), or that its entry copy is not needed (omp.existing), when the
    region maps it after all (a companion member, which the plan does not see)."""
    message, ident, _span = warning
    if ident == "omp-redundant-copy":   # (a second run: the rewrite's own clause for it)
        return any(message.startswith(f"the entry copy of {name} is not needed")
                   for name in names)
    return ident == "omp-not-mapped" and any(
        message.startswith(f"'{name}' keeps its per-kernel mapping") for name in names)


#: why a subject is refused once the check dropped its group's edits
NOT_COMPILING = "its rewrite does not compile"


def _replan(loaded: Loaded, refused: dict[tuple, str], subjects: tuple[tuple, ...],
            dropped: tuple[int, ...]) -> PassOutput:
    """The pass's output once the groups numbered ``dropped`` (of the output that
    ``subjects`` describes, group by group) failed the compile check: their subjects are
    refused, so their constructs go to the safety net (or are counted left) and the summary
    counts the rewrite that is emitted (s2s.driver.settled). Nothing new refused: the same
    output, without a further round."""
    more = dict(refused)
    for number in dropped:
        if number < len(subjects):
            more.setdefault(subjects[number], NOT_COMPILING)
    output = run_omp(loaded, more)
    return output if len(more) > len(refused) else replace(output, replan=None)


def _without_refused(per_construct: list[_PerConstruct], still_left: list[LeftConstruct],
                     left: tuple[LeftConstruct, ...], refused: dict[tuple, str]
                     ) -> tuple[list[_PerConstruct], list[LeftConstruct]]:
    """The safety net's results less the constructs whose own clauses failed the compile
    check: those are left, with their pointers and the reason."""
    from s2s.analysis.omp.report import LeftConstruct

    if not any(key[0] == "construct" for key in refused):
        return per_construct, still_left
    pointers = {c.span: c for c in left}
    kept, still = [], list(still_left)
    for construct in per_construct:
        if ("construct", construct.span) not in refused:
            kept.append(construct)
            continue
        still = [c for c in still if c.span != construct.span]
        origin = pointers[construct.span]
        still.append(LeftConstruct(construct.span, origin.pointers, (
            f"{origin.reason}; its clauses of its own ({' '.join(construct.clauses)}): "
            f"{refused['construct', construct.span]}"), origin.scalars))
    return kept, still


def _with_companions(model, source: bytes, region):
    """``region`` mapping also the scalar members (``w.dt``) its kernels read beside the
    member arrays it maps (s2s.analysis.omp.region_companions), and why it cannot stand."""
    from dataclasses import replace

    from s2s.analysis.omp.callee_companions import callee_companions
    from s2s.analysis.omp.callee_structs import callee_structs
    from s2s.analysis.omp.region_companions import region_companions

    added, refused = region_companions(model, source, region)
    if refused is not None:
        return region, refused
    more, names, refused = callee_companions(model, region)
    if refused is not None:
        return region, refused
    structs, reached = callee_structs(model, region)
    more, names = [*more, *structs], names + reached
    own = {a.name for a in added}
    added = [*added, *(a for a in more if a.name not in own)]
    if not added:
        return region, None
    return replace(region, arrays=region.arrays + tuple(added),
                   device_names=region.device_names + names), None


def _counts(mapped: int, per_construct: int, left: int) -> tuple[tuple[str, int], ...]:
    return ((MAPPED_COUNT, mapped), (PER_CONSTRUCT_COUNT, per_construct), (LEFT_COUNT, left))


@dataclass(frozen=True)
class _PerConstruct:
    span: SourceSpan
    clauses: tuple[str, ...]
    reason: str
    #: every pointer of the construct is mapped now (else it is still counted as left)
    complete: bool
    #: a construct written through a macro: the clauses as ``target enter/exit data``
    #: around it (s2s.transform.omp_macro), not appended to it
    edits: tuple[Edit, ...] = ()


def _safety_net(model, source: bytes, left: tuple[LeftConstruct, ...]
                ) -> tuple[list[_PerConstruct], list[LeftConstruct]]:
    """Clauses of their own for the target constructs the plan leaves with unmapped
    pointers (omp.fallback), and the constructs that still keep one (with the reason)."""
    from s2s.analysis.omp.fallback import construct_maps
    from s2s.analysis.omp.macro_constructs import macro_spans

    index_of = {d.span: k for k, d in enumerate(model.directives) if d.is_target_region}
    macro = macro_spans(model)
    mapped, still = [], []
    for construct in left:
        found, unbounded = construct_maps(model, source, index_of[construct.span],
                                          construct.pointers)
        edits: tuple[Edit, ...] = ()
        if found is not None and construct.span in macro:
            edits, why = _around_macro(model.directives[index_of[construct.span]], found,
                                       source)
            if not edits:
                still.append(replace(construct, reason=f"{construct.reason}; {why}"))
                continue
        if found is not None:   # (also the bounded pointers of a construct left)
            mapped.append(_PerConstruct(construct.span, found.clauses, construct.reason,
                                        unbounded is None, edits))
        if unbounded is not None:
            still.append(replace(construct, pointers=unbounded.pointers, reason=(
                f"{construct.reason}; the range its kernel touches cannot be bounded: "
                f"{unbounded.reason}")))
    return mapped, still


def _around_macro(directive, found, source: bytes) -> tuple[tuple[Edit, ...], str]:
    """The per-construct clauses of a construct written through a macro as ``target
    enter/exit data`` lines around its use (s2s.transform.omp_macro), or why they cannot go
    there."""
    if directive.span.template is not None:
        return (), f"the construct is written through macro '{directive.span.macro}' in a template"
    if not stands_alone(directive.span, source):
        return (), (f"the construct is written through macro '{directive.span.macro}' as the "
                    "body of a statement without braces: no line can go before it")
    edits = enter_exit_edits(directive.span, directive.stmt_span.end, found.clauses, source)
    if edits is None:
        return (), f"the construct is written through macro '{directive.span.macro}'"
    return tuple(edits), ""


def _local_edits(plan: OmpPlan, source: bytes, path: str) -> list[Edit]:
    """Map clauses for function-local arrays and the entries of write-once static tables
    (omp.locals); nothing inside a macro expansion or a template."""
    edits = []
    clauses: dict[int, list[str]] = {}
    for local in plan.local_maps:
        if local.directive.editable:
            clauses.setdefault(local.directive.end, []).append(local.clause)
    for end, texts in clauses.items():
        edits.append(Edit(path, _pragma_end(source, end), 0, " " + " ".join(texts)))
    for entry in plan.static_entries:
        if entry.last.span.editable:
            edits.append(_line_after(entry.last, source, [
                f"#pragma omp target enter data map(always, to: {entry.name})"]))
    return edits


def _not_editable(region: RegionPlan, macro: frozenset[SourceSpan] = frozenset()
                  ) -> SourceSpan | None:
    """The first place the region's edits would land in a macro expansion, or in a template
    other than the one the region's function belongs to. A function template that owns its
    arrays (``template <class T> void run(int n)`` mallocs, maps, frees) is planned on its
    one definition, whose text every instantiation shares: the clauses name no type, so its
    own text may take them. Another template's text may not: the edit would reach its
    instantiations that the plan never saw."""
    own = region.first.span.template
    spans = [region.last.span, *region.removed, *(s for s, _ in region.explicit),
             *(directive for directive, _ in region.redundant)]
    spans += [u.anchor.span for u in region.updates]
    # a line before a construct written through a macro lies outside the macro's use
    spans += [span for span in [region.at, *(u.at for u in region.updates)]
              if span not in macro]
    return next((span for span in spans if span.macro is not None or
                 span.template not in (None, own)), None)


def _clauses(region: RegionPlan, kind: str) -> str:
    names = dict(region.handles)
    if kind == "structured":
        parts = [(a.structured_type, a) for a in region.arrays]
    elif kind == "enter":
        parts = [(a.enter, a) for a in region.arrays]
    else:
        parts = [(a.exit, a) for a in region.arrays]
    pointer_arrays = dict(region.pointer_arrays)
    by_type: dict[str, list[str]] = {}
    for map_type, array in parts:
        if array.name in pointer_arrays:
            for part_type, items in _pointer_array_items(map_type, array.name,
                                                         pointer_arrays[array.name]):
                by_type.setdefault(part_type, []).append(items)
            continue
        by_type.setdefault(map_type, []).append(
            f"{names.get(array.name, array.name)}{array.section}")
    order = ("to", "tofrom", "from", "alloc", "release")
    return " ".join(f"map({t}: {', '.join(by_type[t])})" for t in order if t in by_type)


def _pointer_array_items(map_type: str, name: str,
                         elements: tuple[tuple[str, ...], tuple[str, ...]]
                         ) -> list[tuple[str, str]]:
    """(map type, items) for an array of pointers (omp.pointer_arrays): the array and its
    element sections in one list, the array first, so the elements are attached to its
    device copy; of a type that copies back, only the elements a kernel may write come back
    (the others go in, or are only allocated, with the array)."""
    every, written = elements
    if map_type not in ("tofrom", "from"):
        return [(map_type, ", ".join((name, *every)))]
    staying = {"tofrom": "to", "from": "alloc"}[map_type]
    out = [(staying, ", ".join((name, *(e for e in every if e not in written))))]
    return out + [(map_type, ", ".join(written))]


def _region_edits(region: RegionPlan, source: bytes, path: str, language: str
                  ) -> list[Edit]:
    edits = [_delete_lines(span, source) for span in region.removed]
    for directive, clauses in region.redundant:
        edits.append(_without_clauses(directive, list(clauses), source))
    clauses: dict[int, list[str]] = {}
    for span, clause in region.explicit:
        clauses.setdefault(span.end, []).append(clause)
    for end, texts in clauses.items():
        edits.append(Edit(path, _pragma_end(source, end), 0, " " + " ".join(texts)))
    for member, local in region.handles:
        kind = "auto" if language == "c++" else f"__typeof__({member})"
        value = f"{member}.data()" if member in region.vectors else member
        edits.append(_line_before(region.at, source, f"{kind} {local} = {value};"))
    if region.structured:
        edits.append(_line_before(region.at, source,
                                  f"#pragma omp target data {_clauses(region, 'structured')}"))
    else:
        edits.append(_line_before(region.at, source,
                                  f"#pragma omp target enter data {_clauses(region, 'enter')}"))
        edits += [_line_before(region.at, source, line) for line in _update_lines(
            [pair for item in region.entry_updates for pair in _motions(region, "to", item)])]
        lines = _update_lines([pair for item in region.exit_updates
                               for pair in _motions(region, "from", item)])
        lines.append(f"#pragma omp target exit data {_clauses(region, 'exit')}")
        edits.append(_line_after(region.last, source, lines))
    by_place: dict[int, list[PlannedUpdate]] = {}
    after: dict[int, list[PlannedUpdate]] = {}
    for update in region.updates:
        if update.after:
            after.setdefault(update.anchor.span.start, []).append(update)
            continue
        group = by_place.setdefault(update.at.start, [])
        if all((u.motion, u.item) != (update.motion, update.item) for u in group):
            group.append(update)
    # (the whole file is read for it: only where braces are added)
    unit = indent_unit(source) if any(u.wrap for u in region.updates) else ""
    for group in by_place.values():
        edits += _update_edits(group, source, region, unit)
    for group in after.values():
        lines = _update_lines([pair for u in group
                               for pair in _motions(region, u.motion, u.item)])
        if group[0].wrap:
            edits += _wrapped_after(group[0].anchor, lines, source, unit)
        else:
            edits.append(_line_after(group[0].anchor, source, lines))
    for guard in region.guards:
        edits += _guard_edits(guard, source)
    return edits


def _guard_edits(guard, source: bytes) -> list[Edit]:
    """The two updates around a construct with an ``if`` clause (omp.if_guards), each run
    only when the construct runs on the host."""
    clause = f"#pragma omp target update if(!({guard.condition})) "

    def lines(motion: str, items) -> list[str]:
        return [line.replace("#pragma omp target update ", clause, 1)
                for line in _update_lines([(motion, item) for item in items])]

    edits = [_line_before(guard.at, source, line) for line in lines("from", guard.fetch)]
    if guard.push:
        edits.append(_line_after(guard.kernel, source, lines("to", guard.push)))
    return edits


def _update_lines(items: list[tuple[str, str]]) -> list[str]:
    """``target update`` directives for (motion, item) pairs at one place: as few as can
    hold them (``to(a[0:n], b[0:n]) from(c[0:1])``), since a construct may name each
    variable once only (``from(v[5:1], v[7:1])`` does not compile): the second section of a
    variable goes to a second directive."""
    directives: list[list[tuple[str, str]]] = []
    for pair in items:
        base = pair[1].split("[", 1)[0].strip()
        if any(pair in d for d in directives):
            continue
        home = next((d for d in directives
                     if all(i.split("[", 1)[0].strip() != base for _, i in d)), None)
        if home is None:
            home = []
            directives.append(home)
        home.append(pair)
    lines = []
    for pairs in directives:
        motions: dict[str, list[str]] = {}
        for motion, item in pairs:
            motions.setdefault(motion, []).append(item)
        lines.append("#pragma omp target update " + " ".join(
            f"{motion}({', '.join(names)})" for motion, names in motions.items()))
    return lines


def indent_unit(source: bytes) -> str:
    """The file's indentation step, for lines s2s adds inside braces it adds: a tab when
    lines are indented with tabs, else the most common increase of leading spaces from one
    line to a deeper next one (four spaces when the file says nothing)."""
    steps: dict[int, int] = {}
    tabs = spaces = previous = 0
    for line in source.split(b"\n"):
        body = line.lstrip(b" \t")
        if not body.strip() or body[:1] in (b"#", b"*") or body.startswith((b"//", b"/*")):
            continue
        lead = line[:len(line) - len(body)]
        if b"\t" in lead:
            tabs += 1
            continue
        width = len(lead)
        if width > previous:
            steps[width - previous] = steps.get(width - previous, 0) + 1
            spaces += 1
        previous = width
    if tabs > spaces:
        return "\t"
    step = max(steps, key=lambda k: (steps[k], -k)) if steps else 4
    return " " * step if 1 < step <= 8 else "    "


def _wrapped_after(stmt: Stmt, lines: list[str], source: bytes, unit: str) -> list[Edit]:
    """``target update`` lines after a statement that is a branch or loop body of its own:
    braces around the statement and the lines, so both stay in the branch."""
    indent = stmt.span.indent
    end = _statement_end(stmt, source)
    closing = "".join(f"\n{indent}{unit}{line}" for line in lines) + f"\n{indent}}}"
    return [Edit(stmt.span.file, stmt.span.start, 0, "{\n" + indent + unit),
            Edit(stmt.span.file, end, 0, closing)]


def _motions(region: RegionPlan, motion: str, item: str) -> list[tuple[str, str]]:
    """(motion, item) pairs of a ``target update`` for one planned item: an array of
    pointers moves through its elements' sections (``y`` -> ``y[0][0:n]``, ``y[1][0:n]``:
    a copy of the array itself would overwrite the device addresses its elements were
    attached to; clang takes one element of an array per update directive), ``from`` only
    those a kernel may write (omp.pointer_arrays)."""
    pointer_arrays = dict(region.pointer_arrays)
    if item not in pointer_arrays:
        return [(motion, _named(region, item))]
    every, written = pointer_arrays[item]
    return [(motion, element) for element in (every if motion == "to" else written)]


def _named(region: RegionPlan, item: str) -> str:
    """A clause item as written in a directive: a ``std::vector`` through its handle
    (``v[0:n]`` -> ``s2s_v[0:n]``)."""
    if not region.vectors:
        return item
    handles = dict(region.handles)
    for label in region.vectors:
        if item.startswith(label + "[") or item == label:
            return handles[label] + item[len(label):]
    return item


def _update_edits(group: list[PlannedUpdate], source: bytes, region: RegionPlan,
                  unit: str) -> list[Edit]:
    """The ``target update`` lines before one statement (braces added around it when it is
    the body of a control statement: a stand-alone directive cannot be one)."""
    lines = _update_lines([pair for u in group for pair in _motions(region, u.motion, u.item)])
    first = group[0]
    span = first.at
    if not any(u.wrap for u in group):
        return [_line_before(span, source, line) for line in lines]
    indent = span.indent
    end = _statement_end(first.anchor, source)
    opening = "{\n" + "".join(f"{indent}{unit}{line}\n" for line in lines) + f"{indent}{unit}"
    return [Edit(span.file, span.start, 0, opening), Edit(span.file, end, 0, f"\n{indent}}}")]


def _pragma_end(source: bytes, end: int) -> int:
    """Where a clause can be appended to a pragma: before trailing blanks and comments."""
    line_end = source.find(b"\n", end - 1)
    line_end = len(source) if line_end < 0 else line_end
    text = source[:line_end]
    for marker in (b"//", b"/*"):
        at = text.find(marker, source.rfind(b"\n", 0, end) + 1)
        if at >= 0:
            line_end = min(line_end, at)
    while line_end > 0 and source[line_end - 1:line_end] in (b" ", b"\t", b"\r"):
        line_end -= 1
    return line_end


def _without_clauses(directive: SourceSpan, clauses: list[SourceSpan], source: bytes) -> Edit:
    """One directive's pragma with ``clauses`` removed (each with the blanks before it): a
    continuation line left empty goes, and the backslash of what is now the last line too.
    Lines whose content does not change stay byte for byte (insertions before the pragma
    land at or before its start, outside the replaced bytes)."""
    begin = directive.start
    text = source[begin:directive.end]
    for span in sorted(clauses, key=lambda c: c.start, reverse=True):
        low, high = span.start - begin, span.end - begin
        while low > 0 and text[low - 1:low] in (b" ", b"\t"):
            low -= 1
        if low == 0 or text[low - 1:low] == b"\n":  # first on its line: keep the indent
            low = span.start - begin
            while text[high:high + 1] in (b" ", b"\t"):
                high += 1
        text = text[:low] + text[high:]
    lines = text.split(b"\n")
    kept = lines[:1] + [line for line in lines[1:] if line.strip(b" \t\r\\") != b""]
    out = []
    for index, line in enumerate(kept):
        cr = b"\r" if line.endswith(b"\r") else b""
        body = line[:-1] if cr else line
        has = body.rstrip(b" \t").endswith(b"\\")
        want = index < len(kept) - 1
        if has and not want:
            body = body.rstrip(b" \t")[:-1].rstrip(b" \t")
        elif want and not has:
            body += b" \\"
        out.append(body + cr)
    kept_text = b"\n".join(out).decode("utf-8", "surrogateescape")  # bytes kept as they were
    return Edit(directive.file, begin, directive.end - begin, kept_text)


def _delete_lines(span: SourceSpan, source: bytes) -> Edit:
    """Remove a directive with its whole line(s) (continuation lines included)."""
    start = source.rfind(b"\n", 0, span.start) + 1
    end = source.find(b"\n", span.end - 1)
    end = len(source) if end < 0 else end + 1
    return Edit(span.file, start, end - start, "")


def _line_before(span: SourceSpan, source: bytes, text: str) -> Edit:
    """Insert ``text`` as a line of its own before the statement at ``span``."""
    line_start = source.rfind(b"\n", 0, span.start) + 1
    prefix = source[line_start:span.start]
    if prefix.strip() == b"":
        indent = prefix.decode("utf-8", "surrogateescape")
        return Edit(span.file, line_start, 0, f"{indent}{text}\n")
    return Edit(span.file, span.start, 0, f"\n{span.indent}{text}\n{span.indent}")


def _line_after(stmt: Stmt, source: bytes, lines: list[str]) -> Edit:
    """Insert ``lines`` as lines of their own after the statement ``stmt``."""
    end = _statement_end(stmt, source)
    newline = source.find(b"\n", end)
    indent = stmt.span.indent
    block = "".join(f"{indent}{line}\n" for line in lines)
    if newline < 0:
        return Edit(stmt.span.file, len(source), 0, "\n" + block)
    if source[end:newline].strip() == b"":
        return Edit(stmt.span.file, newline + 1, 0, block)
    return Edit(stmt.span.file, end, 0, "\n" + block + indent)


def _statement_end(stmt: Stmt, source: bytes) -> int:
    """End of the statement including its ``;`` (expression statements' spans exclude it)."""
    end = stmt.span.end
    if source[end - 1:end] in (b"}", b";"):
        return end
    at = end
    while at < len(source) and source[at:at + 1] in (b" ", b"\t"):
        at += 1
    return at + 1 if source[at:at + 1] == b";" else end


def _explain(region: RegionPlan) -> list[Diagnostic]:
    notes = []
    kind = "target data" if region.structured else "target enter/exit data"
    arrays = ", ".join(f"{a.name}{a.section} ({a.enter}/{a.exit})" for a in region.arrays)
    notes.append(Diagnostic.note(f"{kind} region in '{region.function}' maps {arrays}",
                                 EXPLAIN_ID, region.first.span))
    for update in region.updates:
        notes.append(Diagnostic.note(f"target update {update.motion}({update.item}): "
                                     f"{update.reason}", EXPLAIN_ID, update.anchor.span))
    reasons = region.entry_reasons or \
        ("the host set only these elements of the fresh buffer",) * len(region.entry_updates)
    for item, reason in zip(region.entry_updates, reasons, strict=True):
        notes.append(Diagnostic.note(f"target update to({item}) at the region's start: "
                                     f"{reason}", EXPLAIN_ID, region.first.span))
    for item in region.exit_updates:
        notes.append(Diagnostic.note(f"target update from({item}) at the region's end: the host "
                                     "needs these elements afterwards and the device holds "
                                     "their newest values", EXPLAIN_ID, region.last.span))
    for span in region.removed:
        notes.append(Diagnostic.note("removed this data directive: the plan above replaces it",
                                     EXPLAIN_ID, span))
    return notes


def describe(plan: OmpPlan) -> str:
    """A plain-text summary of a plan (for tests and debugging)."""
    lines = []
    for region in plan.regions:
        lines.append(f"region {region.function} structured={region.structured}: "
                     + _clauses(region, "structured" if region.structured else "enter"))
        for update in region.updates:
            lines.append(f"  update {update.motion}({update.item}) before line "
                         f"{update.anchor.span.line}")
    return "\n".join(lines)


registry.register("omp", run_omp, whole_program=True, needs_word=b"target")
