"""Which functions get an OpenMP data region, and which statements it spans.

A *root* is a function with target regions that no other such function calls; an *owner* is
a called function whose device work uses only storage it allocates itself. Each gets one
region: the statements of the innermost plain block holding all its device work (never
starting inside a loop), possibly extended over host statements after the last device work
whose reads are served by element copies inside their loops (omp.probe). Pointer swaps inside
it must be permutations of the mapped storage.

These choices come before any copy is planned and only read the program and its IR, so they
live apart from the solving (omp.solver) and the per-array assembly (omp.arrays); the small
queries on storage (``allocated``, ``local_array``) and on the call graph (``callees_of``,
``local_names``) are shared with the planner (omp.plan).
"""

from __future__ import annotations

from s2s.analysis.omp.flow import Interpreter
from s2s.analysis.omp.ir import (
    Access,
    CallEvent,
    Copy,
    FunctionIR,
    Node,
    called_functions,
    handed_functions,
)
from s2s.analysis.omp.place import element_anchor, hoist_path, source_texts
from s2s.analysis.omp.pointer_arrays import is_array_of_pointers
from s2s.analysis.omp.probe import probe_tail
from s2s.analysis.omp.sections import host_sections
from s2s.analysis.omp.sizes import alias_groups, root_name
from s2s.analysis.omp.solver import entry_state
from s2s.analysis.omp.state import Frame, Unsupported
from s2s.model import TranslationUnit

DATA_WORDS = {("target", "data"), ("target", "enter"), ("target", "exit"), ("target", "update")}


def root_functions(irs: dict[str, FunctionIR]) -> list[str]:
    """Functions with device work (target regions, or calls reaching them) that no function
    with device work calls: each gets a data region of its own."""
    called = set()
    for ir in irs.values():
        if not ir.has_device:
            continue
        for node in ir.root.walk():
            for event in node.events + node.cond + node.step:
                if isinstance(event, CallEvent):
                    called.update(event.targets)
                    called.update(handed_functions(irs, event))
    return [n for n, ir in irs.items() if ir.has_device and n not in called]


def owner_functions(model: TranslationUnit, irs: dict[str, FunctionIR], roots: list[str],
                    source: bytes) -> list[str]:
    """Called functions that get a data region of their own: those whose device work uses only
    storage they allocate themselves (``run(n)`` mallocs its arrays, loops over kernels, frees
    them). A caller's region cannot map that storage (it is allocated inside the region, anew on
    every call); the owner's can, and since no other function's storage is involved the two
    plans never touch the same arrays. Functions whose kernels also use their caller's arrays or
    globals stay with the caller's plan, and so do functions with data directives of their own
    or in their callees (the caller's plan replaces those, omp.callee_maps)."""
    directive_holders = {d.function for d in model.directives if d.words[:2] in DATA_WORDS}
    locals_of = local_names(model, irs)
    heap: dict[str, set[str]] = {}      # per function (one scan: thousands of functions)
    for allocation in model.allocations:
        if allocation.kind not in ("vla", "static_array"):
            # (an element of a local array of pointers, ``y[k] = malloc(...)``: the array
            # holds storage of the function's own, omp.pointer_arrays)
            root = allocation.name.split("[")[0]
            heap.setdefault(allocation.function, set()).add(
                root if root != allocation.name and
                is_array_of_pointers(model, allocation.function, root) else allocation.name)
    out = []
    for name in sorted(irs):
        ir = irs[name]
        own_heap = heap.get(name, set())
        if name in roots or not ir.has_device or not own_heap or \
                ({name} | callees_of(irs, name)) & directive_holders:
            continue
        labels = _survey_labels(model, irs, ir, locals_of)
        if labels and any(label.split("@")[0] in own_heap for label in labels) and \
                all(_owned_by(model, name, label) for label in labels):
            out.append(name)
    return out + _member_owners(model, irs, roots, directive_holders, locals_of, out)


def _member_owners(model: TranslationUnit, irs: dict[str, FunctionIR], roots: list[str],
                   directive_holders: set, locals_of: dict[str, frozenset],
                   owners: list[str]) -> list[str]:
    """Member functions that get a data region for their class's members with storage of
    their own (``std::vector``s such as ``m_x`` of ``Domain``; pointers a method the
    constructors call allocates, omp.method_members): only member functions can name them,
    so a caller such as ``main`` (which holds the object) cannot map them. Of the member
    functions whose device work uses only such members and storage of their own, the
    outermost ones (no other such function of the class calls them) are planned:
    ``LagrangeLeapFrog`` calling five phase methods gets one region over all five."""
    found = []
    for name in sorted(irs):
        function = irs[name].function
        if function.member_of is None or name in roots or name in owners or \
                not irs[name].has_device or ({name} | callees_of(irs, name)) & directive_holders:
            continue
        members = {a.name for a in model.allocations
                   if a.function == f"{function.member_of}::"}
        labels = _survey_labels(model, irs, irs[name], locals_of) if members else set()
        if labels and labels & members and \
                all(label in members or _owned_by(model, name, label) for label in labels):
            found.append(name)
    return [name for name in found if not any(
        name in callees_of(irs, other) and
        irs[other].function.member_of == irs[name].function.member_of
        for other in found if other != name)]


def _survey_labels(model: TranslationUnit, irs: dict[str, FunctionIR], ir: FunctionIR,
                   locals_of: dict[str, frozenset]) -> set[str]:
    """The arrays the device work of ``ir`` (planned as a root) uses, or an empty set when its
    statements cannot be interpreted."""
    block, nodes = region_nodes(ir.root, device_nodes(irs))
    survey = Interpreter(irs, None, {}, locals_of)
    try:
        survey.run_range(nodes, entry_state(model, ir.function, nodes[0].stmt.span.start, set()),
                         Frame(ir.function.name, locals=frozenset()))
    except Unsupported:
        return set()
    return set(survey.device_labels)


def _owned_by(model: TranslationUnit, function: str, label: str) -> bool:
    """``label`` (of a survey of ``function`` as a root) is storage ``function`` or one of its
    callees declares or allocates, never a parameter's or a global's."""
    name = label.split("@")[0]
    if "::" in name:
        return allocated(model, function, name) or local_array(model, name)
    return any(a.name == name and a.function == function for a in model.allocations)


def device_nodes(irs: dict[str, FunctionIR], ignore: frozenset = frozenset()):
    """Whether a node holds device work (a target region, or a call of a function with
    some, other than the ``ignore``d ones), memoized per node: the region is placed around
    the nodes that do."""
    memo: dict[int, bool] = {}

    def has(node: Node) -> bool:
        if id(node) not in memo:
            own = node.kind == "kernel" or any(
                callee in irs and irs[callee].has_device and callee not in ignore
                for e in node.events + node.cond + node.step if isinstance(e, CallEvent)
                for callee in e.targets)
            memo[id(node)] = own or any(has(p) for p in node.parts())
        return memo[id(node)]

    return has


def region_nodes(root: Node, has_device) -> tuple[Node, list[Node]]:
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


def region_tail(model: TranslationUnit, irs, function, block: Node, nodes: list[Node],
                tracked: frozenset, source: bytes) -> list[Node]:
    """The host statements after the last device work that the region extends over, so
    that element reads in their loops get element copies (omp.probe.probe_tail)."""
    text = source_texts(source)
    groups = alias_groups(model, function, 0, 0)

    def served_inside(node: Node, top: Node, name: str) -> bool:
        path = hoist_path(node, "D", name, [top], irs)
        group = frozenset(groups.get(name, ()))
        parts = host_sections([path[-1]], name, text, aliases=group)
        hoisted = [name + p for p in parts] if parts else [name]
        return element_anchor(path, name, text, group, None, irs, hoisted) is not path[-1]

    return probe_tail(block, nodes[-1], tracked, text, served_inside)


def reassigned(nodes: list[Node], tracked: frozenset) -> bool:
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


def allocated(model: TranslationUnit, function: str, name: str) -> bool:
    """Whether ``name`` (``f#1::tmp``: a local of a called function) is a pointer the
    program allocates, rather than one loaded from somewhere the analysis does not follow."""
    if "::" in name:
        function, name = name.split("#")[0], name.rsplit("::", 1)[1]
    return any(a.name == name and a.function in (function, None) for a in model.allocations)


def local_array(model: TranslationUnit, label: str) -> bool:
    """Whether ``label`` is a callee's array variable (``coarsen#1::coarse``): its launches
    map it by value, never through a device copy some data directive made."""
    function, _, name = label.partition("#")
    name = name.partition("::")[2]
    return any(a.function == function and a.name == name and a.kind in ("vla", "static_array")
               for a in model.allocations)


def callees_of(irs: dict[str, FunctionIR], name: str) -> set[str]:
    """Functions of the file that ``name`` calls, directly or not."""
    return called_functions(irs, [irs[name].root])


def local_names(model: TranslationUnit, irs: dict[str, FunctionIR]) -> dict[str, frozenset]:
    """Per function, the root names of the pointers it assigns and of the storage it
    allocates: in a called function these are renamed per call (``f#2::tmp``, omp.calls)."""
    allocated: dict[str, set[str]] = {}
    for allocation in model.allocations:
        allocated.setdefault(allocation.function, set()).add(allocation.name)
    out = {}
    for name, ir in irs.items():
        names = {c.target for n in ir.root.walk() for c in n.events + n.cond + n.step
                 if isinstance(c, Copy)}
        names |= allocated.get(name, set())
        out[name] = frozenset(root_name(n) for n in names)
    return out
