"""Plans of OpenMP data mapping: one device data region per root function, copies inside it.

For each function with target regions that no other such function calls (a *root*), the
region is the range of statements of the innermost plain block that holds all device work
(target regions, or calls reaching them); it never starts inside a loop, so the device copy
lives across every iteration of the time loops it contains. It extends over host statements
after the last device work whose reads are served by element copies inside their loops
(omp_probe). Inside it:

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from s2s.analysis import omp_existing
from s2s.analysis.omp_callee_maps import callee_mappings
from s2s.analysis.omp_cover import entry_coverage
from s2s.analysis.omp_facts import drop_contained, guard_facts
from s2s.analysis.omp_flow import BOTH, Frame, Interpreter, State, Unsupported, norm_text
from s2s.analysis.omp_guards import directive_chain, drop_changing_counts, unknown_storage
from s2s.analysis.omp_ir import (
    Access,
    CallEvent,
    Copy,
    FunctionIR,
    IRBuilder,
    Node,
    called_functions,
)
from s2s.analysis.omp_locals import LocalMap, StaticEntry, local_maps, static_table_entry
from s2s.analysis.omp_place import (
    PlannedUpdate,
    element_anchor,
    hoist_path,
    insertion_span,
    place_copy,
    push_after,
    push_candidates,
    same_section,
    source_texts,
)
from s2s.analysis.omp_probe import probe_tail
from s2s.analysis.omp_sections import atoms_of, changing_term, host_sections
from s2s.analysis.omp_sizes import (
    alias_groups,
    array_sections,
    entry_sections,
    exact_aliases,
    first_use,
    live_after,
    root_name,
    section_from_callees,
)
from s2s.analysis.polynomial import NotPoly, assigned_in, disjoint, merge_adjacent, poly, render
from s2s.model import SourceSpan, Stmt, TranslationUnit

MAX_COPIES = 200
DATA_WORDS = {("target", "data"), ("target", "enter"), ("target", "exit"), ("target", "update")}


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
    #: (member path, local pointer) pairs: the entry/exit maps name the local (see _handles)
    handles: tuple[tuple[str, str], ...] = ()


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


def plan_file(model: TranslationUnit, source: bytes) -> OmpPlan:
    plan = OmpPlan()
    if not model.target_regions:
        return plan
    irs = IRBuilder(model, source).build_all()
    roots = _roots(irs)
    for name in roots + _owners(model, irs, roots, source):
        plan.reach[name] = frozenset({name} | _callees(irs, name))
        try:
            region = _plan_root(model, irs, irs[name], plan, source)
        except Unsupported as why:
            plan.warnings.append((f"data mapping of '{name}' left as written: {why}",
                                  "omp-unsupported", irs[name].function.span))
            plan.left[name] = str(why)
            continue
        if region is not None:
            plan.regions.append(region)
    planned = {(r.function, a.name) for r in plan.regions for a in r.arrays}
    plan.local_maps, plan.static_entries = local_maps(model, irs, source, planned)
    return plan


def _roots(irs: dict[str, FunctionIR]) -> list[str]:
    called = set()
    for ir in irs.values():
        if not ir.has_device:
            continue
        for node in ir.root.walk():
            for event in node.events + node.cond + node.step:
                if isinstance(event, CallEvent):
                    called.add(event.callee)
    return [n for n, ir in irs.items() if ir.has_device and n not in called]


def _owners(model: TranslationUnit, irs: dict[str, FunctionIR], roots: list[str],
            source: bytes) -> list[str]:
    """Called functions that get a data region of their own: those whose device work uses only
    storage they allocate themselves (``run(n)`` mallocs its arrays, loops over kernels, frees
    them). A caller's region cannot map that storage (it is allocated inside the region, anew on
    every call); the owner's can, and since no other function's storage is involved the two
    plans never touch the same arrays. Functions whose kernels also use their caller's arrays or
    globals stay with the caller's plan, and so do functions with data directives of their own
    or in their callees (the caller's plan replaces those, omp_callee_maps)."""
    directive_holders = {d.function for d in model.directives if d.words[:2] in DATA_WORDS}
    locals_of = _locals(model, irs)
    out = []
    for name in sorted(irs):
        ir = irs[name]
        own_heap = {a.name for a in model.allocations
                    if a.function == name and a.kind not in ("vla", "static_array")}
        if name in roots or not ir.has_device or not own_heap or \
                ({name} | _callees(irs, name)) & directive_holders:
            continue
        labels = _survey_labels(model, irs, ir, locals_of)
        if labels and any(label.split("@")[0] in own_heap for label in labels) and \
                all(_owned_by(model, name, label) for label in labels):
            out.append(name)
    return out


def _survey_labels(model: TranslationUnit, irs: dict[str, FunctionIR], ir: FunctionIR,
                   locals_of: dict[str, frozenset]) -> set[str]:
    """The arrays the device work of ``ir`` (planned as a root) uses, or an empty set when its
    statements cannot be interpreted."""
    block, nodes = _region(ir.root, _device_nodes(irs))
    survey = Interpreter(irs, None, {}, locals_of)
    try:
        survey.run_range(nodes, _entry_state(model, ir.function, nodes[0].stmt.span.start, set()),
                         Frame(ir.function.name, locals=frozenset()))
    except Unsupported:
        return set()
    return set(survey.device_labels)


def _owned_by(model: TranslationUnit, function: str, label: str) -> bool:
    """``label`` (of a survey of ``function`` as a root) is storage ``function`` or one of its
    callees declares or allocates, never a parameter's or a global's."""
    name = label.split("@")[0]
    if "::" in name:
        return _allocated(model, function, name) or _local_array(model, name)
    return any(a.name == name and a.function == function for a in model.allocations)


# --- the region ------------------------------------------------------------------------------


def _device_nodes(irs: dict[str, FunctionIR]):
    memo: dict[int, bool] = {}

    def has(node: Node) -> bool:
        if id(node) not in memo:
            own = node.kind == "kernel" or any(
                isinstance(e, CallEvent) and e.callee in irs and irs[e.callee].has_device
                for e in node.events + node.cond + node.step)
            memo[id(node)] = own or any(has(p) for p in node.parts())
        return memo[id(node)]

    return has


def _region(root: Node, has_device) -> tuple[Node, list[Node]]:
    """The innermost plain block holding all device work, and its children from the first
    to the last one with device work."""
    block = root
    while True:
        busy = [c for c in block.children if has_device(c)]
        if len(busy) == 1 and busy[0].kind == "seq" and not busy[0].jump:
            block = busy[0]
            continue
        first, last = block.children.index(busy[0]), block.children.index(busy[-1])
        return block, block.children[first:last + 1]


def _plan_root(model: TranslationUnit, irs: dict[str, FunctionIR], ir: FunctionIR,
               plan: OmpPlan, source: bytes, extend: bool = True) -> RegionPlan | None:
    function = ir.function
    warned = len(plan.warnings)
    if any(node.jump in ("goto", "label") for node in ir.root.walk()):
        raise Unsupported("it uses goto (control can re-enter the data region)")
    for name in sorted({function.name} | _callees(irs, function.name)):
        for node in irs[name].root.walk():
            if node.kind == "kernel" and any(d.clause("if") for d in
                                             directive_chain(model, node.directive)):
                # if(false) runs the region on the host, on the host copies: which copy is
                # fresh afterwards depends on a run-time value.
                raise Unsupported(f"the target region at {node.stmt.span.location()} has an "
                                  "if clause (it may run on the host)")
    callee_maps = callee_mappings(model, irs, ir, _roots(irs), _callees(irs, function.name),
                                  source, DATA_WORDS)
    # The function's own data directives are replaced by the plan (which is computed
    # from the program's accesses alone; the kernels keep their map clauses), and so are
    # its callees' enter/exit data where omp_callee_maps allows it.
    removed = tuple(d.span for d in _data_directives(model, function.name, source)) + \
        callee_maps.spans
    has_device = _device_nodes(irs)
    block, nodes = _region(ir.root, has_device)
    start, end = nodes[0].stmt.span.start, nodes[-1].stmt.span.end
    if function.name != "main" and any(n.jump == "return" for top in nodes for n in top.walk()):
        raise Unsupported("it returns from inside the statements the data region would span")
    locals_of = _locals(model, irs)
    frame = Frame(function.name, locals=frozenset())

    survey = Interpreter(irs, None, {}, locals_of)
    survey.run_range(nodes, _entry_state(model, function, start, set()), frame)
    lengths, skipped = array_sections(model, function, survey.device_labels, start, end)
    for label in list(skipped):
        section = section_from_callees(model, survey.device_uses.get(label, ()), source)
        if section is None:
            section = dict(callee_maps.lengths).get(label)
        if section is not None and skipped[label].startswith("its element count"):
            lengths[label] = section
            del skipped[label]
    text = source_texts(source)
    drop_changing_counts(lengths, skipped, nodes, irs, text)
    unmapped = sorted(label for label in set(skipped) | (survey.device_labels - set(lengths))
                      if not _local_array(model, label)
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
                not _allocated(model, function.name, label.split("@")[0]):
            raise Unsupported(f"{_shown(label)} is used on the device and "
                              + unknown_storage(model, nodes, label.split("@")[0]))
    for label, why in skipped.items():
        if _region_pointer(model, function.name, label):
            continue  # set by device code: nothing to map
        plan.warnings.append((f"{_shown(label)} keeps its per-kernel mapping: {why}",
                              "omp-not-mapped", nodes[0].stmt.span))
    tracked = frozenset(lengths)
    if not tracked:
        return None
    tail = _probe_tail(model, irs, function, block, nodes, tracked, source) if extend else []
    if any(changing_term(lengths[label], "\n".join(text(n.stmt) for n in tail), [])
           for label in tracked):
        tail = []  # the exit copies would name other elements
    if tail:
        nodes = nodes + tail
        end = nodes[-1].stmt.span.end
    live = live_after(model, function, start, end, tracked)
    swapped = _reassigned(nodes, tracked)
    solver = _Solver(model, irs, function, nodes, tracked, lengths, locals_of, frame, source,
                     tracked if swapped else frozenset())
    seed: set[str] = set()
    for _ in range(len(tracked) + 1):
        to_labels, updates, exit_state = solver.solve(seed)
        # An array the host reads afterwards but that is fresh on neither side at the end
        # (a kernel under a branch overwrote it on one path only) must be copied in.
        stale = {label for label in live if exit_state is not None
                 and not exit_state.get_valid(label)}
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
        return _plan_root(model, irs, ir, plan, source, extend=False)

    arrays, exit_updates, entry_updates, entry_reasons = [], [], [], []
    after = block.children[block.children.index(nodes[-1]) + 1:] + _continuation(block)
    coverage = entry_coverage(solver, _entry_state(model, function, start, to_labels), updates,
                              "\n".join(text(n.stmt) for n in nodes if n.stmt is not None))
    groups = alias_groups(model, function, 0, 0)
    facts = guard_facts(function.body, start,
                        lambda a, b: source[a:b].decode("utf-8", "replace"))
    for label in sorted(tracked, key=lambda n: (first_use(model, n), n)):
        fresh_host = exit_state is None or "H" in exit_state.get_valid(label)
        exit_type = "from" if (label in live and not fresh_host) else "release"
        exit_sections = [lengths[label] or None]
        if exit_type == "from" and label in ir_names(ir):
            # Only the elements the host reads afterwards come back, when they are known,
            # and of those only the ones kernels wrote since both copies were fresh.
            group = frozenset(groups.get(label, ()))
            parts = host_sections(after, label, text, aliases=group,
                                  same=exact_aliases(model, function, label, start), irs=irs)
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
    if removed and not omp_existing.replaces_hand_mapping(
            model, ir, _data_directives(model, function.name, source), tracked, lengths,
            plan.warnings, end, (arrays, updates, exit_updates, entry_updates),
            callee_maps.transfers):
        return None
    # ``target data`` takes one statement: not a declaration (its name would be scoped to the
    # construct; C does not even allow it there), nothing that returns out of it.
    structured = len(nodes) == 1 and not swapped and not exit_updates and not entry_updates \
        and nodes[0].stmt.kind != "decl" and not any(n.jump == "return" for n in nodes[0].walk())
    explicit = _explicit_sections(model, nodes, lengths, exit_state)
    handles = () if swapped else _handles(irs, nodes, survey.device_uses, tracked, source)
    return RegionPlan(function.name, nodes[0].stmt, nodes[-1].stmt,
                      insertion_span(nodes[0].stmt, model), structured, tuple(arrays),
                      tuple(updates), tuple(exit_updates), removed, tuple(explicit),
                      tuple(entry_updates), tuple(entry_reasons), handles)


def _allocated(model: TranslationUnit, function: str, name: str) -> bool:
    """Whether ``name`` (``f#1::tmp``: a local of a called function) is a pointer the
    program allocates, rather than one loaded from somewhere the analysis does not follow."""
    if "::" in name:
        function, name = name.split("#")[0], name.rsplit("::", 1)[1]
    return any(a.name == name and a.function in (function, None) for a in model.allocations)


def _shown(label: str) -> str:
    """``'tmp' of 'matvec'`` for the label ``matvec#1::tmp@fresh``."""
    name = label.split("@")[0]
    if "::" in name:
        return f"'{name.rsplit('::', 1)[1]}' of '{name.split('#')[0]}'"
    return f"'{name}'"


def _handles(irs: dict[str, FunctionIR], nodes: list[Node], device_uses: dict,
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
        name, suffix = f"s2s_{path.group(1)}", 1
        while name.encode() in taken:
            suffix += 1
            name = f"s2s_{path.group(1)}{suffix}"
        taken.add(name.encode())
        out.append((label, name))
    return tuple(out)


def _probe_tail(model: TranslationUnit, irs, function, block: Node, nodes: list[Node],
                tracked: frozenset, source: bytes) -> list[Node]:
    """The host statements after the last device work that the region extends over, so
    that element reads in their loops get element copies (omp_probe.probe_tail)."""
    text = source_texts(source)
    groups = alias_groups(model, function, 0, 0)

    def served_inside(node: Node, top: Node, name: str) -> bool:
        path = hoist_path(node, "D", name, [top], irs)
        group = frozenset(groups.get(name, ()))
        parts = host_sections([path[-1]], name, text, aliases=group)
        hoisted = [name + p for p in parts] if parts else [name]
        return element_anchor(path, name, text, group, None, irs, hoisted) is not path[-1]

    return probe_tail(block, nodes[-1], tracked, text, served_inside)


def _copies_inside(updates, tail: list[Node]) -> bool:
    """Whether some planned copy goes inside a statement of ``tail`` (not before it)."""
    tops = {id(node.stmt) for node in tail}
    first, last = tail[0].stmt.span.start, tail[-1].stmt.span.end
    return any(first <= u.anchor.span.start < last and id(u.anchor) not in tops
               for u in updates)


def _explicit_sections(model: TranslationUnit, nodes: list[Node], lengths, state
                       ) -> list[tuple[SourceSpan, str]]:
    """``map(tofrom: p[0:n])`` for pointers a target region of the region uses without a
    map clause: inside the data region the storage is present, so the clause moves
    nothing, but the kernel no longer depends on an implicit zero-length mapping."""
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
                    out.append((directive.span,
                                f"map(tofrom: {event.name}{next(iter(sections))})"))
    return out


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


class _Solver:
    """Entry copies and ``target update`` placements for one region, by repeated dataflow."""

    def __init__(self, model, irs, function, nodes, tracked, lengths, locals_of, frame,
                 source, distinct):
        self.model, self.irs, self.function, self.nodes = model, irs, function, nodes
        self.tracked, self.lengths, self.locals_of, self.frame = tracked, lengths, locals_of, \
            frame
        self.source, self.distinct = source, distinct
        self.start = nodes[0].stmt.span.start
        self.section_of = _element_section(nodes, source_texts(source))
        self.candidates = push_candidates(nodes, self.section_of)
        self.length_memo: dict = {}
        self.root_memo: dict = {}
        texts: dict[str, str] = {}

        def body_text(name: str) -> str:
            if name not in texts:
                body = irs[name].function.body
                texts[name] = source[body.span.start:body.span.end].decode("utf-8", "replace")
            return texts[name]

        self.body_text = body_text

    def _run(self, to_labels):
        interp = Interpreter(self.irs, self.tracked, self.lengths, self.locals_of, record=True,
                             distinct=self.distinct, section_of=self.section_of,
                             length_memo=self.length_memo, body_text=self.body_text,
                             root_memo=self.root_memo)
        exit_state = interp.run_range(self.nodes, _entry_state(self.model, self.function,
                                                               self.start, to_labels),
                                      self.frame)
        return interp, exit_state

    def solve(self, seed: set[str]):
        for ir in self.irs.values():
            for node in ir.root.walk():
                node.before.clear()
                node.write_through.clear()
        for node, access, _ in self.candidates:
            node.write_through.add(access.name)
        model, irs, function, nodes = self.model, self.irs, self.function, self.nodes
        tracked, lengths, source = self.tracked, self.lengths, self.source
        to_labels = set(seed)
        for _ in range(len(tracked) + 1):
            interp, exit_state = self._run(to_labels)
            # Copy in at entry what the device needs before the host changes it.
            needed = {label for f in interp.failures.values()
                      if f.access is not None and f.side == "D" and f.pristine
                      for label in f.labels if label in tracked}
            if needed <= to_labels:
                break
            to_labels |= needed
        text = source_texts(source)
        updates = []
        for _ in range(MAX_COPIES):
            # One copy at a time, the earliest failure first: a copy can make later failures
            # go away (three host reads in a row need one update, not three).
            pending = [f for f in interp.failures.values() if f.access is not None]
            if not pending:
                break
            failure, joins = _first_to_fix(interp.failures.values())
            fresh_entry = {label for label in failure.labels if label in tracked}
            if failure.access is None and failure.node is nodes[0] and \
                    not fresh_entry <= to_labels:
                # A copy before the region's first loop is a copy at the region's entry.
                to_labels |= fresh_entry
                interp, exit_state = self._run(to_labels)
                continue
            if not failure.valid:
                where = failure.access.ref.span.location() if failure.access.ref else \
                    function.name
                raise Unsupported(f"neither the host nor the device copy of "
                                  f"'{failure.local}' is known to be fresh at {where}")
            # The first failure of every other storage can be fixed in the same round: a
            # copy of one array changes nothing for another.
            chosen, seen = [failure], set(failure.labels)
            if not joins:
                for other in pending[1:]:
                    if other.valid and not other.labels & seen:
                        chosen.append(other)
                    seen |= other.labels
            for item in chosen:
                updates += place_copy(item, irs, nodes, lengths, model, function.name, text)
            interp, exit_state = self._run(to_labels)
            if interp.clobbers:
                update, where, _ = interp.clobbers[0]
                raise Unsupported(f"a copy of '{update.name}' inside '{where}' would copy "
                                  f"stale data in one of its calling contexts")
        else:
            raise Unsupported(f"more than {MAX_COPIES} copies would be needed")
        updates += [push_after(node, access, section, model)
                    for node, access, section in self.candidates
                    if (id(node), access.name) in interp.pushed]
        return to_labels, updates, exit_state


def _first_to_fix(failures):
    """The earliest failure in execution order; one with both copies stale is fixed by the
    copy before the loop whose iterations disagree with its entry (see _join_fixes)."""
    failures = list(failures)
    joins = {f.name: f for f in failures if f.access is None}
    for failure in failures:
        if failure.access is None:
            continue
        if not failure.valid and failure.name in joins:
            return joins[failure.name], True
        return failure, False
    raise AssertionError("no failure to fix")


def _element_section(nodes: list[Node], text):
    """``[e:1]`` for a host write ``a[e] = ...`` whose index is the same wherever it is
    evaluated in the region (its variables are assigned nowhere in it), else None."""
    region_text = "\n".join(text(n.stmt) for n in nodes if n.stmt is not None)

    def section_of(access) -> str | None:
        ref = access.ref
        if ref is None or len(ref.subscripts) != 1:
            return None
        try:
            index = poly(ref.subscripts[0].text)
        except NotPoly:
            return None
        names = {v for atom in atoms_of(index) for v in re.findall(r"[A-Za-z_]\w*", atom)}
        if any(assigned_in(v, region_text) for v in names):
            return None
        return f"[{render(index)}:1]"

    return section_of


def _reassigned(nodes: list[Node], tracked: frozenset) -> bool:
    """Whether mapped pointers are reassigned in the region. Only a permutation is accepted
    (double-buffer swaps through a temporary): the exit directive then still names each
    mapped storage exactly once, through whichever pointer holds it at the end."""
    copies = [e for n in nodes for m in n.walk() for e in m.events + m.cond + m.step
              if isinstance(e, Copy)]
    if not any(c.target in tracked for c in copies):
        return False
    _swap_statements_are_adjacent(nodes, tracked)
    values = {name: name for name in tracked}
    for copy in copies:
        if copy.source is None or copy.offset:
            raise Unsupported(f"pointer '{copy.target}' is reassigned inside the data region")
        values[copy.target] = values.get(copy.source, copy.source)
    if sorted(values[name] for name in tracked) != sorted(tracked):
        raise Unsupported("mapped pointers are reassigned inside the data region in a way "
                          "that is not a swap")
    return True


def _swap_statements_are_adjacent(nodes: list[Node], tracked: frozenset) -> None:
    """The statements of a swap follow each other and access nothing: between them two
    mapped pointers briefly hold the same storage, which the analysis assumes never."""
    holders = [n for top in nodes for n in top.walk() if n.kind == "leaf"
               and any(isinstance(e, Copy) for e in n.events)]
    for node in holders:
        if any(isinstance(e, (Access, CallEvent)) for e in node.events):
            raise Unsupported("a pointer swap statement inside the data region also "
                              "accesses arrays")
    parents = {id(n.parent) for n in holders}
    if len(parents) > 1:
        raise Unsupported("the pointer swap inside the data region is spread over blocks")
    if holders:
        siblings = holders[0].parent.children
        places = sorted(siblings.index(n) for n in holders)
        if places != list(range(places[0], places[0] + len(places))):
            raise Unsupported("the statements of the pointer swap are not adjacent")


def _entry_state(model: TranslationUnit, function, start: int, to_labels) -> State:
    """The state where the region begins: every array fresh on the host (and on the device
    for those copied in), pointers copied before the region pointing where their source
    does (``r = result`` before the region makes ``r`` an alias of ``result``)."""
    state = State({label: BOTH for label in to_labels})
    for copy in model.pointer_copies:
        if copy.function != function.name or copy.span.start >= start:
            continue
        if copy.source is None or copy.offset:
            state.pts.pop(copy.target, None)
            continue
        state.pts[copy.target] = state.get_pts(copy.source)
    for name, labels in state.pts.items():
        state.valid[name] = BOTH if labels and labels <= set(to_labels) else frozenset("H")
    return state


def _region_pointer(model: TranslationUnit, function: str, label: str) -> bool:
    """``label`` is a pointer declared inside a target region of ``function`` (``double *p
    = out;`` in the region): device code sets it, no host mapping can be for it."""
    refs = [r for r in model.array_refs if r.function == function and r.root == label]
    return bool(refs) and all(r.region_local for r in refs)


def _local_array(model: TranslationUnit, label: str) -> bool:
    """Whether ``label`` is a callee's array variable (``coarsen#1::coarse``): its launches
    map it by value, never through a device copy some data directive made."""
    function, _, name = label.partition("#")
    name = name.partition("::")[2]
    return any(a.function == function and a.name == name and a.kind in ("vla", "static_array")
               for a in model.allocations)


def _data_directives(model: TranslationUnit, function: str, source: bytes = b"") -> list:
    """The function's data directives the plan replaces (write-once static tables of its
    own, omp_locals, excepted)."""
    return [d for d in model.directives if d.function == function and
            d.words[:2] in DATA_WORDS and not static_table_entry(model, d, source)]


def _callees(irs: dict[str, FunctionIR], name: str) -> set[str]:
    """Functions of the file that ``name`` calls, directly or not."""
    return called_functions(irs, [irs[name].root])


def _locals(model: TranslationUnit, irs: dict[str, FunctionIR]) -> dict[str, frozenset]:
    out = {}
    for name, ir in irs.items():
        names = {c.target for n in ir.root.walk() for c in n.events + n.cond + n.step
                 if isinstance(c, Copy)}
        names |= {a.name for a in model.allocations if a.function == name}
        out[name] = frozenset(root_name(n) for n in names)
    return out

