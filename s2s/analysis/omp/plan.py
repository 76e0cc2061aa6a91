"""Plans of OpenMP data mapping: one device data region per root function, copies inside it.

For each function with target regions that no other such function calls (a *root*), the
region is the range of statements of the innermost plain block that holds all device work
(target regions, or calls reaching them); it never starts inside a loop, so the device copy
lives across every iteration of the time loops it contains. It extends over host statements
after the last device work whose reads are served by element copies inside their loops
(omp.probe). Inside it:

1. which arrays to map: everything the device accesses whose storage is allocated before the
   region and whose element count is known (allocation, or the program's own map clauses);
2. entry copies: an array gets ``to`` when some device access reads it (or writes it
   partially) before the host changes it — found by running the dataflow with every array
   fresh only on the host and collecting failures on untouched ("pristine") arrays;
3. ``target update`` for every remaining failure, hoisted out of loops that do not write the
   array on the other side, never out of a branch (that would copy on paths that do not need
   it), never out of the region;
4. exit copies: ``from`` only for arrays whose host copy is stale at the end and that the host
   reads afterwards (or that escape to the caller).

The plan is verified by running the dataflow again with the copies in place: any remaining
failure abandons the function's plan (left as written, with a warning) instead of emitting
something wrong.

This module holds the plan's types, :func:`plan_file` (the entry point of the analysis) and
the per-function steps with the checks that abandon a plan. The choice of functions and
statements is omp.region, steps 2 and 3 omp.solver, step 4 and what the directives name
omp.arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from s2s.analysis.omp import existing
from s2s.analysis.omp.arrays import (
    MappedArray,
    explicit_sections,
    map_arrays,
    member_handles,
    redundant_maps,
    vector_handles,
)
from s2s.analysis.omp.callee_maps import callee_mappings
from s2s.analysis.omp.changes import Scope, changing_term
from s2s.analysis.omp.copied_members import copied_section
from s2s.analysis.omp.flow import Interpreter
from s2s.analysis.omp.global_entries import entry_only_functions, global_entries
from s2s.analysis.omp.guards import (
    directive_chain,
    drop_changing_counts,
    offset_alias,
    region_scope,
    unknown_storage,
)
from s2s.analysis.omp.if_guards import IfGuard, if_guard
from s2s.analysis.omp.ir import FunctionIR, IRBuilder, Node
from s2s.analysis.omp.lifetime import ObjectMapping, object_mappings
from s2s.analysis.omp.locals import LocalMap, StaticEntry, local_maps, static_table_entry
from s2s.analysis.omp.member_counts import member_section
from s2s.analysis.omp.place import PlannedUpdate, insertion_span, source_texts
from s2s.analysis.omp.pointer_arrays import pointer_array_maps, whole_copies
from s2s.analysis.omp.region import (
    DATA_WORDS,
    allocated,
    callees_of,
    device_nodes,
    local_array,
    local_names,
    owner_functions,
    reassigned,
    region_nodes,
    region_tail,
    root_functions,
)
from s2s.analysis.omp.sizes import (
    array_sections,
    class_members,
    helper_section,
    live_after,
    section_from_callees,
    vector_labels,
)
from s2s.analysis.omp.solver import Solver, entry_state
from s2s.analysis.omp.state import Frame, Unsupported, norm_text
from s2s.analysis.omp.touched import device_hulls, host_outside, narrow, unsound
from s2s.analysis.omp.touched_counts import surely_runs, touched_count
from s2s.model import SourceSpan, Stmt, TranslationUnit


@dataclass(frozen=True)
class RegionPlan:
    function: str
    first: Stmt
    last: Stmt
    at: SourceSpan  # where the opening directive goes
    structured: bool
    arrays: tuple[MappedArray, ...]
    updates: tuple[PlannedUpdate, ...]
    exit_updates: tuple[str, ...] = ()  # ``target update from`` items before the exit
    removed: tuple[SourceSpan, ...] = ()  # the function's own data directives, replaced
    explicit: tuple[tuple[SourceSpan, str], ...] = ()  # (target directive, clause to append)
    entry_updates: tuple[str, ...] = ()  # ``target update to`` items after the entry
    entry_reasons: tuple[str, ...] = ()  # why each entry update (same order)
    #: (member path, local pointer) pairs: the entry/exit maps name the local
    #: (see omp.arrays.member_handles)
    handles: tuple[tuple[str, str], ...] = ()
    #: (function, pointer name) of every device access to a mapped array: a callee's
    #: parameter ``u`` bound to the region's ``grid`` is mapped under that name
    device_names: tuple[tuple[str, str], ...] = ()
    #: mapped labels that are ``std::vector``s: their handle (in ``handles``) holds
    #: ``v.data()``, and every clause names the handle (frontend.host.containers)
    vectors: tuple[str, ...] = ()
    #: (kernel directive, its map clauses the region makes moot): deleted
    redundant: tuple[tuple[SourceSpan, tuple[SourceSpan, ...]], ...] = ()
    #: mapped arrays of pointers (omp.pointer_arrays): label -> (its elements' sections
    #: ``y[0][0:n], ...``, those of the elements kernels may write: all ``from`` names)
    pointer_arrays: tuple[tuple[str, tuple[tuple[str, ...], tuple[str, ...]]], ...] = ()
    #: (label, function, name) of every device access to a member of a struct whose other
    #: members the region maps (``g.h`` read as ``g->h`` in ``scale(&g)``): what
    #: omp.callee_companions maps beside them
    member_uses: tuple[tuple[str, str, str], ...] = ()
    #: constructs with an ``if`` clause in the region's reach, with their guarding updates
    #: (omp.if_guards)
    guards: tuple[IfGuard, ...] = ()


@dataclass
class OmpPlan:
    regions: list[RegionPlan] = field(default_factory=list)
    warnings: list[tuple[str, str, object]] = field(default_factory=list)  # (message, id, span)
    #: per root function: the functions its device work is planned over (itself, callees)
    reach: dict[str, frozenset[str]] = field(default_factory=dict)
    #: per root function whose data mapping was left as written: why
    left: dict[str, str] = field(default_factory=dict)
    local_maps: list[LocalMap] = field(default_factory=list)  # function-local arrays
    static_entries: list[StaticEntry] = field(default_factory=list)  # write-once tables
    #: classes whose vector members stay mapped over each object's lifetime (omp.lifetime)
    objects: list[ObjectMapping] = field(default_factory=list)
    #: (why a class's vectors are mapped per call instead, the class)
    per_call: list[tuple[str, SourceSpan]] = field(default_factory=list)
    #: functions with device work that a function pointer s2s does not follow may also
    #: call (their kernels may run where no planned region is) -> why
    escaped: dict[str, str] = field(default_factory=dict)
    #: global storage that device routines use, entered once (omp.global_entries)
    global_entries: list = field(default_factory=list)


def plan_file(model: TranslationUnit, source: bytes,
              refused_globals: frozenset = frozenset()) -> OmpPlan:
    """The plan of ``model``; ``refused_globals``: global storage whose entry
    (omp.global_entries) a compile check dropped."""
    plan = OmpPlan()
    if not model.target_regions:
        return plan
    irs = IRBuilder(model, source).build_all()
    plan.global_entries = [e for e in global_entries(model) if e.name not in refused_globals
                           and e.after.span.editable]
    entry_only = entry_only_functions(model, irs, {e.name for e in plan.global_entries})
    plan.escaped = escaped_functions(model, irs)
    plan.objects, plan.per_call = object_mappings(model, irs, local_names(model, irs)) \
        if model.classes else ([], [])
    covered = frozenset().union(*(o.covered for o in plan.objects))
    covered |= entry_only
    roots = [name for name in root_functions(irs) if name not in covered]
    owners = [name for name in owner_functions(model, irs, roots, source) if name not in covered]
    # classes whose members with storage a member function's region, or the objects, map;
    # also those a member function maps with data directives of its own (a first run's
    # region, a hand port): its callers cannot name the members, nor replace the directives
    self_classes, self_mapping = _self_mapped(model)
    members = frozenset(irs[n].function.member_of for n in owners
                        if irs[n].function.member_of) | {o.cls for o in plan.objects} | \
        self_classes
    # member functions of those classes: their data directives are the objects' mapping
    # (or map the class's own members), which no caller's plan replaces
    mapped_by_objects = frozenset(f.name for f in model.functions
                                  if f.member_of in {o.cls for o in plan.objects}) | \
        self_mapping
    for name in roots + owners:
        plan.reach[name] = frozenset({name} | callees_of(irs, name))
        try:
            region = _plan_root(model, irs, irs[name], plan, source, members=members,
                                skip=mapped_by_objects, ignore=entry_only)
        except Unsupported as why:
            plan.warnings.append((f"data mapping of '{name}' left as written: {why}",
                                  "omp-unsupported", irs[name].function.span))
            plan.left[name] = str(why)
            continue
        if region is not None:
            plan.regions.append(region)
    _plan_callees_of_refused(model, irs, plan, source, roots + owners, members,
                             mapped_by_objects, entry_only)
    planned = {(r.function, a.name) for r in plan.regions for a in r.arrays}
    plan.local_maps, plan.static_entries = local_maps(model, irs, source, planned)
    return plan


def _plan_callees_of_refused(model: TranslationUnit, irs: dict[str, FunctionIR], plan: OmpPlan,
                             source: bytes, planned: list[str], members: frozenset,
                             skip: frozenset, ignore: frozenset) -> None:
    """Callees of refused roots planned as roots of their own: a data region over the
    callee's body, per call (su3_bench's ``main`` is refused, ``su3_mat_nn`` holds every
    kernel and the vectors' sizes). Only callees that no plan kept by another root
    reaches (its copies assume the device holds what it planned), that no function
    pointer reaches, with no data directives in reach (a caller's plan would replace
    them), whose device work no other such callee calls (its region covers it). The
    refused root's own constructs are mapped per construct, so every array's host copy
    is fresh at each call: the callee's plan starts from that, as a root's does. A
    callee refused in turn hands down to its own callees."""
    holders = {d.function for d in model.directives if d.words[:2] in DATA_WORDS}
    kept = set().union(*(plan.reach[n] for n in planned if n not in plan.left))
    # (under a data directive of the caller's, or after an enter data of another callee,
    # the device may hold an array already: the callee's copies would assume otherwise)
    refused = [n for n in planned if n in plan.left and not plan.reach[n] & holders]
    tried = set(refused)    # (recursive functions: each is tried once)
    while refused:
        below = set().union(*(callees_of(irs, n) for n in refused))
        below = {n for n in below if irs[n].has_device and n not in kept and
                 n not in plan.reach and n not in plan.escaped and n not in tried and
                 not ({n} | callees_of(irs, n)) & holders}
        tried |= below
        covered = set().union(*(callees_of(irs, o) for o in below))
        refused = []
        for name in sorted(below - covered):
            warned, left = len(plan.warnings), dict(plan.left)
            try:
                region = _plan_root(model, irs, irs[name], plan, source, members=members,
                                    skip=skip, ignore=ignore, callee_root=True)
            except Unsupported:
                region = None
            if region is None:
                # (the refused root's reason stays the one its constructs report)
                del plan.warnings[warned:]
                plan.left = left
                refused.append(name)
                continue
            plan.reach[name] = frozenset({name} | callees_of(irs, name))
            plan.regions.append(region)


def _plan_root(model: TranslationUnit, irs: dict[str, FunctionIR], ir: FunctionIR,
               plan: OmpPlan, source: bytes, extend: bool = True,
               members: frozenset = frozenset(), skip: frozenset = frozenset(),
               exact: frozenset = frozenset(), branches: bool = False,
               ignore: frozenset = frozenset(), callee_root: bool = False) -> RegionPlan | None:
    function = ir.function
    warned = len(plan.warnings)
    if any(node.jump in ("goto", "label") for node in ir.root.walk()):
        raise Unsupported("it uses goto (control can re-enter the data region)")
    guards = []
    for name in sorted({function.name} | callees_of(irs, function.name)):
        for node in irs[name].root.walk():
            if node.kind == "kernel" and any(d.clause("if") for d in
                                             directive_chain(model, node.directive)):
                # if(false) runs the region on the host, on the host copies: guarded by
                # updates that keep the device copy the fresh one (omp.if_guards), or refused
                guard = if_guard(model, source, node.stmt)
                if isinstance(guard, str):
                    raise Unsupported(f"the target region at {node.stmt.span.location()} has "
                                      f"an if clause (it may run on the host): {guard}")
                guards.append(guard)
    callee_maps = callee_mappings(model, irs, ir, root_functions(irs),
                                  callees_of(irs, function.name) - skip, source, DATA_WORDS)
    # The function's own data directives are replaced by the plan (which is computed
    # from the program's accesses alone; the kernels keep their map clauses), and so are
    # its callees' enter/exit data where omp.callee_maps allows it.
    removed = tuple(d.span for d in _data_directives(model, function.name, source)) + \
        callee_maps.spans
    has_device = device_nodes(irs, ignore)
    block, nodes = region_nodes(ir.root, has_device)
    start, end = nodes[0].stmt.span.start, nodes[-1].stmt.span.end
    if function.name != "main" and any(n.jump == "return" for top in nodes for n in top.walk()):
        raise Unsupported("it returns from inside the statements the data region would span")
    locals_of = local_names(model, irs)
    frame = Frame(function.name, locals=frozenset())

    survey = Interpreter(irs, None, {}, locals_of)
    survey.run_range(nodes, entry_state(model, function, start, set()), frame)
    # A class's members with storage of its own (vectors, pointers allocated in a method the
    # constructors call) are mapped by the region of one of its member functions, or
    # (pointer members too) over each object's lifetime.
    others = members - {function.member_of}
    class_of = class_members(model) if others else {}
    class_of.update({p.name: o.cls for o in plan.objects for p in o.pointers
                     if o.cls in others})
    elsewhere = {label for label in survey.device_labels if class_of.get(label) in others}
    why = offset_alias(model, function.name, nodes, start,
                       frozenset(use[1] for uses in survey.device_uses.values() for use in uses
                                 if use[0] == function.name))
    if why is not None:
        raise Unsupported(why)
    lengths, skipped = array_sections(
        model, function, survey.device_labels - elsewhere, start, end,
        counts=lambda index: surely_runs(model, function, index, nodes))
    # a callee planned as a root of its own names its caller's vectors by reference
    referred = {p.name for p in function.params if p.vector} if callee_root else set()
    for label in list(skipped):
        section = section_from_callees(model, survey.device_uses.get(label, ()), source)
        if section is None:
            section = dict(callee_maps.lengths).get(label)
        if section is None:
            section = helper_section(model, function, label) or \
                copied_section(model, function, label)
        if section is None:
            section = member_section(model, source, label, function.name)
        if section is None and label in referred:
            section = f"[0:{label}.size()]"
        if section is None and skipped[label].startswith("its element count"):
            section = touched_count(model, source, function, label,
                                    survey.device_uses.get(label, ()), start, end, region=nodes)
        if section is not None and skipped[label].startswith("its element count"):
            lengths[label] = section
            del skipped[label]
    text = source_texts(source)
    vectors = tuple(sorted(set(vector_labels(model, function, lengths)) |
                           (referred & set(lengths))))
    drop_changing_counts(model, lengths, skipped, nodes, irs, vectors)
    pointer_arrays = pointer_array_maps(model, source, function.name, lengths, skipped, start)
    unmapped = sorted(label for label in set(skipped) |
                      (survey.device_labels - set(lengths) - elsewhere)
                      if not local_array(model, label)
                      and not _region_pointer(model, function.name, label))
    if callee_maps.spans and unmapped:
        # (a kernel's array created in a callee, say, may rely on the callee's enter data)
        raise Unsupported(f"'{unmapped[0]}' could not be mapped by the plan, which would "
                          "replace the enter/exit data of the functions it calls")
    for label in unmapped:
        # Storage allocated inside the region keeps its kernels' own mapping (fresh on
        # every allocation, it is no mapped array). Anything else may hold the address
        # of a mapped array: a plan that does not see those accesses could leave either
        # copy stale.
        if "@" in label and label not in skipped and \
                not allocated(model, function.name, label.split("@")[0]):
            raise Unsupported(f"{_shown(label)} is used on the device and "
                              + unknown_storage(model, nodes, label.split("@")[0]))
    for label, why in skipped.items():
        if _region_pointer(model, function.name, label):
            continue  # set by device code: nothing to map
        if _scalar_member(model, survey.device_uses.get(label, ())):
            continue  # (``g->h``: no storage; the report names a struct left unmapped)
        plan.warnings.append((f"{_shown(label)} keeps its per-kernel mapping: {why}",
                              "omp-not-mapped", nodes[0].stmt.span))
    tracked = frozenset(lengths)
    if not tracked:
        fresh = [_shown(label) for label in unmapped if "@" in label]
        if fresh:   # (never silent: the per-construct warnings give this reason)
            plan.left.setdefault(function.name, (
                "the storage its device work uses is allocated inside the statements a data "
                f"region would span ({', '.join(fresh)}): each target region maps its own"))
        return None
    tail = region_tail(model, irs, function, block, nodes, tracked, source) if extend else []
    ending = Scope(function.name, tuple(n.stmt.span for n in tail if n.stmt is not None))
    if any(changing_term(model, lengths[label], ending) for label in tracked):
        tail = []  # the exit copies would name other elements
    if tail:
        nodes = nodes + tail
        end = nodes[-1].stmt.span.end
    live = live_after(model, function, start, end, tracked)
    swapped = reassigned(nodes, tracked)
    scope = region_scope(nodes, irs)
    hulls = device_hulls(model, ir, nodes, tracked, survey.device_uses, text, bool(swapped),
                         scope)
    hulls = {label: hull for label, hull in hulls.items() if label not in pointer_arrays}
    ignored, written = host_outside({k: v for k, v in hulls.items() if k not in exact},
                                    model, ir, nodes, text, scope)
    solver = Solver(model, irs, function, nodes, tracked, lengths, locals_of, frame, source,
                    tracked if swapped else frozenset(), ignored, branches)
    seed: set[str] = set()
    for _ in range(len(tracked) + 1):
        to_labels, updates, exit_state = solver.solve(seed)
        # An array the host reads afterwards but that is fresh on neither side at the end
        # (a kernel under a branch overwrote it on one path only) must be copied in.
        stale = {label for label in live if exit_state is not None
                 and not exit_state.get_valid(label)}
        if stale & to_labels and not branches:
            # a copy inside a branch served one path only (``if (t != result) memcpy(...)``
            # after a swap loop): again, with copies allowed before branches
            del plan.warnings[warned:]
            return _plan_root(model, irs, ir, plan, source, extend=extend, members=members,
                              skip=skip, ignore=ignore, exact=exact, branches=True,
                              callee_root=callee_root)
        if stale & to_labels:
            raise Unsupported(f"'{sorted(stale & to_labels)[0]}' may be stale on both sides "
                              "where the region ends")
        unsure = stale - to_labels
        if not unsure:
            break
        seed = to_labels | unsure
    else:
        raise Unsupported("copies at the region's end could not be made consistent")
    if tail and not _copies_inside(updates, tail):
        # The host reads after the device work came out cheaper as a read-back at the
        # region's end after all (the stale sections are small): plan without the tail.
        del plan.warnings[warned:]
        return _plan_root(model, irs, ir, plan, source, extend=False, members=members,
                          skip=skip, ignore=ignore, exact=exact, callee_root=callee_root)

    arrays, exit_updates, entry_updates, entry_reasons = map_arrays(
        solver, ir, block, live, to_labels, updates, exit_state)
    if hulls:
        updates, entry_updates, entry_reasons, exit_updates = narrow(
            updates, entry_updates, entry_reasons, exit_updates, hulls,
            frozenset(a.name for a in arrays if a.exit == "from"))
        bad = unsound(written, hulls, function.name, arrays, updates, exit_updates)
        if bad:
            del plan.warnings[warned:]
            return _plan_root(model, irs, ir, plan, source, extend=extend, members=members,
                              skip=skip, ignore=ignore, exact=exact | bad,
                              callee_root=callee_root)
    if removed and not existing.replaces_hand_mapping(
            model, ir, _data_directives(model, function.name, source), tracked, lengths,
            plan.warnings, end, (arrays, updates, exit_updates, entry_updates),
            callee_maps.transfers):
        return None
    # ``target data`` takes one statement: not a declaration (its name would be scoped to the
    # construct; C does not even allow it there), nothing that returns out of it.
    structured = len(nodes) == 1 and not swapped and not exit_updates and not entry_updates \
        and nodes[0].stmt.kind != "decl" and not any(n.jump == "return" for n in nodes[0].walk())
    if pointer_arrays:
        updates, exit_updates, entry_updates = whole_copies(
            pointer_arrays, model, function.name, updates, exit_updates, entry_updates)
    explicit = explicit_sections(model, function, nodes, lengths, exit_state, arrays)
    handles = () if swapped else member_handles(irs, nodes, survey.device_uses, tracked, source)
    vectors = tuple(label for label in vectors if label in tracked)
    handles += vector_handles(vectors, source, handles)
    return RegionPlan(function.name, nodes[0].stmt, nodes[-1].stmt,
                      insertion_span(nodes[0].stmt, model), structured, tuple(arrays),
                      tuple(updates), tuple(exit_updates), removed, tuple(explicit),
                      tuple(entry_updates), tuple(entry_reasons), handles,
                      tuple(sorted({(use[0], use[1]) for label in tracked
                                    for use in survey.device_uses.get(label, ())})),
                      vectors, redundant_maps(model, nodes, arrays, explicit, bool(swapped)),
                      tuple(pointer_arrays.items()),
                      _member_uses(survey.device_uses, tracked), guards=tuple(guards))


def _scalar_member(model: TranslationUnit, uses) -> bool:
    """Whether every device use of a label is a scalar member (``g->h`` of ``step(&g)``):
    no storage of its own, so no "element count" to miss; a kernel reaching it through a
    pointer no clause maps is the report's (omp.hidden_uses.struct_pointers)."""
    found = False
    for use in uses:
        name = norm_text(use[1])
        if "." not in name and "->" not in name:
            return False
        for ref in model.in_function("array_refs", use[0]):
            if ref.directive is not None and norm_text(ref.array) == name:
                if ref.pointer or ref.subscripts or ref.call:
                    return False
                found = True
    return found


def _member_uses(device_uses: dict, tracked: frozenset) -> tuple[tuple[str, str, str], ...]:
    """(label, function, name) of the device uses of untracked members ``g.h`` of structs
    with tracked members (``g.u``)."""
    structs = {label.rpartition(".")[0] for label in tracked if "." in label}
    return tuple(sorted((label, use[0], use[1]) for label, uses in device_uses.items()
                        if label not in tracked and label.rpartition(".")[0] in structs
                        for use in uses))


def _self_mapped(model: TranslationUnit) -> tuple[frozenset[str], frozenset[str]]:
    """(classes, member functions): member functions whose data directives map members of
    their class with storage of its own (omp.sizes.class_members) and nothing else (a first
    run's region in ``Run()``, a hand port), and their classes."""
    owner = class_members(model)
    found: dict[str, set[str]] = {}
    for directive in model.directives:
        if directive.words[:2] not in DATA_WORDS or directive.function is None:
            continue
        function = model.function(directive.function)
        if function is None or function.member_of is None:
            continue
        items = [norm_text(item.base) for clause in directive.clauses for item in clause.items]
        ok = bool(items) and all(owner.get(item) == function.member_of for item in items)
        found.setdefault(function.name, set()).add(function.member_of if ok else "")
    functions = {name for name, classes in found.items() if "" not in classes}
    return (frozenset(c for name in functions for c in found[name]), frozenset(functions))


def _shown(label: str) -> str:
    """``'tmp' of 'matvec'`` for the label ``matvec#1::tmp@fresh``."""
    name = label.split("@")[0]
    if "::" in name:
        return f"'{name.rsplit('::', 1)[1]}' of '{name.split('#')[0]}'"
    return f"'{name}'"


def _copies_inside(updates, tail: list[Node]) -> bool:
    """Whether some planned copy goes inside a statement of ``tail`` (not before it)."""
    tops = {id(node.stmt) for node in tail}
    first, last = tail[0].stmt.span.start, tail[-1].stmt.span.end
    return any(first <= u.anchor.span.start < last and id(u.anchor) not in tops
               for u in updates)


def _region_pointer(model: TranslationUnit, function: str, label: str) -> bool:
    """``label`` is a pointer declared inside a target region of ``function`` (``double *p
    = out;`` in the region): device code sets it, no host mapping can be for it."""
    by_root = model.cached(("omp region pointer roots", function), lambda: _refs_by_root(
        model.in_function("array_refs", function)))
    refs = by_root.get(label, ())
    return bool(refs) and all(r.region_local for r in refs)


def _refs_by_root(refs) -> dict[str, list]:
    """A function's array refs by root name (looked up per label and root function: a
    filter of every ref of a big ``main`` per label was quadratic)."""
    out: dict[str, list] = {}
    for ref in refs:
        out.setdefault(ref.root, []).append(ref)
    return out


def _data_directives(model: TranslationUnit, function: str, source: bytes = b"") -> list:
    """The function's data directives the plan replaces (write-once static tables of its
    own, omp.locals, excepted)."""
    return [d for d in model.directives if d.function == function and
            d.words[:2] in DATA_WORDS and not static_table_entry(model, d, source)]


def escaped_functions(model: TranslationUnit, irs: dict[str, FunctionIR]) -> dict[str, str]:
    """Functions with device work (and their callees) whose address is taken where the
    analysis cannot follow the calls it leads to: not handed to a wrapper that calls that
    parameter, not a local pointer that is only called (those are followed, omp.calls)."""
    out: dict[str, str] = {}
    for ref in model.function_refs:
        if ref.name not in irs or not irs[ref.name].has_device:
            continue
        wrapper = irs.get(ref.call) if ref.call else None
        if wrapper is not None and ref.arg_index in wrapper.called_params:
            continue
        why = f"'{ref.name}' is also reached through a function pointer taken at " \
              f"{ref.span.location()}, whose calls s2s does not follow"
        for name in {ref.name} | callees_of(irs, ref.name):
            out.setdefault(name, why)
    return out

