"""Global storage that device routines use: one ``target enter data`` for the rest of the run.

A ``declare target`` routine that dereferences a global pointer (``*x = 1.0 +
constants[c];``, AMD's device_routine_wdynglobaldata) reads the device copy of the global,
which points at storage only a mapping of ``constants[0:n]`` attaches. A data region of the
function that allocates and fills it (``initialize_constants``) releases that storage at its
end, before any kernel of ``main`` calls the routine: on a GPU the routine reads freed memory
(on the host device the run cannot show it). No region of the caller can hold it either: the
storage is allocated inside the callee.

The right mapping is the one the storage's life asks for: ``target enter data map(alloc:
constants[0:n])`` right after the allocation (``to`` after ``calloc``: its zeros are values),
and no release (the storage lives until the
program ends). Every construct then finds it present, and the device global stays attached.
It is chosen only where nothing else can go wrong with it:

* the global is allocated once (one allocation with a known count, never copied or
  re-pointed, in a function that runs once: ``main``, or called from one place outside
  loops of a function that runs once) and no hand-written directive maps it;
* the host never touches its elements: every access outside a target construct is in a
  routine that only constructs call (so there is nothing to copy in or back, and ``alloc``
  moves nothing), and it is never passed to a call on the host (``free`` included: storage
  freed while mapped would leave a stale mapping at an address ``malloc`` may hand out again);
* or the host touches them only to fill them, in the statements right after the allocation
  (``for (i ...) table[i] = ...;``), with no construct and no call of the program's
  functions among them: then the entry is ``to`` and goes after the last of them.

Facts from the model only: allocations, array references, pointer copies, call sites and
directive clauses.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.omp.hidden_uses import routine_globals
from s2s.analysis.omp.state import norm_text
from s2s.model import Stmt, TranslationUnit


@dataclass(frozen=True)
class GlobalEntry:
    """``target enter data map(alloc: name[0:count])`` after ``after`` in ``function``."""

    function: str
    name: str
    count: str
    after: Stmt
    reason: str
    #: ``alloc`` after ``malloc`` (nothing defined to copy), ``to`` after ``calloc`` or an
    #: initialised ``new[]`` (the zeros are the storage's first values)
    map_type: str = "alloc"


def global_entries(model: TranslationUnit) -> list[GlobalEntry]:
    """The entries of the global storage that device routines use (module doc)."""
    used: dict[str, set[int]] = {}
    for index, directive in enumerate(model.directives):
        if directive.is_target_region:
            for name in routine_globals(model, index):
                used.setdefault(norm_text(name), set()).add(index)
    if not used:
        return []
    routines = _routines(model)
    mapped = {norm_text(item.base) for d in model.directives for clause in d.maps
              for item in clause.items}
    out = []
    for name in sorted(used):
        allocations = [a for a in model.allocations if norm_text(a.name) == name]
        if len(allocations) != 1 or name in mapped or _copied(model, name, allocations[0]):
            continue
        allocation = allocations[0]
        if allocation.kind not in ("malloc", "calloc", "new[]") or allocation.count is None \
                or allocation.function is None or not _runs_once(model, allocation.function):
            continue
        host = [r for r in model.array_refs if norm_text(r.array) == name and
                r.directive is None and (r.function not in routines or r.call is not None)]
        after = _statement_of(model, allocation)
        if after is None or _passed_on_host(model, name, routines):
            continue
        map_type = "to" if allocation.kind == "calloc" or allocation.initialised else "alloc"
        reason = "the host never touches its elements"
        if host:
            after = _filled_by(model, allocation, after, host)
            if after is None:
                continue
            map_type, reason = "to", ("the host fills its elements right after the allocation "
                                      "and never touches them again")
        out.append(GlobalEntry(allocation.function, name, allocation.count.text, after, (
            f"device routines read the global '{name}' in constructs of other functions, "
            f"and {reason}: its storage stays mapped from then to the end of the run"),
            map_type))
    return out


def _runs_once(model: TranslationUnit, name: str, seen: frozenset = frozenset()) -> bool:
    """Whether ``name`` runs at most once: ``main``, or a function whose address is never
    taken, called from one place only, outside every loop of a caller that runs once. An
    allocating function run twice would enter new storage each time and never release the
    old (its device copy would stay mapped to the end of the run): no entry then."""
    if name == "main":
        return True
    if name in seen or any(ref.name == name for ref in model.function_refs):
        return False
    sites = [(caller, call) for caller in model.functions for call in caller.calls
             if call.name == name]
    if len(sites) != 1:
        return False
    caller, call = sites[0]
    if any(_holds(loop.span, call.span) for loop in caller.loops):
        return False
    return _runs_once(model, caller.name, seen | {name})


def _filled_by(model: TranslationUnit, allocation, first: Stmt, host) -> Stmt | None:
    """The last statement of the fill that follows ``allocation`` (``first`` its statement)
    when every host access of the global (``host``: its array references) lies in the
    statements of the same block from ``first`` on, in the allocating function, none a
    call argument (a helper may keep the pointer): the entry copies the filled storage in
    after it, and nothing touches the host copy again. None when the accesses are anywhere
    else, or a statement up to the last one runs a construct or calls a function of the
    program (whose kernels would find the storage unmapped)."""
    block = _block_of(model.function(allocation.function), first)
    if block is None or any(r.function != allocation.function or r.call is not None
                            for r in host):
        return None
    statements = block.children[block.children.index(first):]
    holding = [next((k for k, s in enumerate(statements) if _holds(s.span, r.span)), None)
               for r in host]
    if None in holding:
        return None
    fill = statements[:max(holding) + 1]
    if any(d.is_target_region and any(_holds(s.span, d.span) for s in fill)
           for d in model.directives) or any(
               model.function(call.name) is not None for s in fill for sub in s.walk()
               for call in sub.calls):
        return None
    return fill[-1]


def _block_of(host, stmt: Stmt):
    """The block of ``host``'s body that holds ``stmt`` as a child."""
    if host is None or host.body is None:
        return None
    return next((s for s in host.body.walk() if s.kind == "block" and
                 any(child is stmt for child in s.children)), None)


def _holds(outer, span) -> bool:
    return outer.file == span.file and outer.start <= span.start < outer.end


def _copied(model: TranslationUnit, name: str, allocation) -> bool:
    """Whether ``name`` is copied to another pointer or given a value other than its one
    allocation."""
    for copy in model.pointer_copies:
        if copy.source and norm_text(copy.source) == name:
            return True
        if norm_text(copy.target) == name and not (
                copy.span.file == allocation.span.file and
                copy.span.start <= allocation.span.start < copy.span.end):
            return True
    return False


def _passed_on_host(model: TranslationUnit, name: str, routines: set[str]) -> bool:
    """Whether host code (outside target constructs and routines) passes ``name`` itself to
    a call: ``free(table)``, ``memcpy(table, ...)``."""
    for function in model.functions:
        if function.name in routines:
            continue
        inside = [d.stmt_span for d in model.directives
                  if d.function == function.name and d.is_target_region and d.stmt_span]
        for call in function.calls:
            if any(norm_text(arg.text) == name for arg in call.args) and not any(
                    s.file == call.span.file and s.start <= call.span.start < s.end
                    for s in inside):
                return True
    return False


def _routines(model: TranslationUnit) -> set[str]:
    """Functions called only inside target constructs or by such functions: device code."""
    calls: dict[str, list[tuple[str | None, bool]]] = {}
    for function in model.functions:
        inside = [d.stmt_span for d in model.directives
                  if d.function == function.name and d.is_target_region and d.stmt_span]
        for call in function.calls:
            in_kernel = any(s.file == call.span.file and s.start <= call.span.start < s.end
                            for s in inside)
            calls.setdefault(call.name, []).append((function.name, in_kernel))
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, sites in calls.items():
            if name not in found and model.function(name) is not None and \
                    all(in_kernel or caller in found for caller, in_kernel in sites):
                found.add(name)
                changed = True
    return found


def _statement_of(model: TranslationUnit, allocation) -> Stmt | None:
    """The statement of a block that holds ``allocation`` (the line after it is the
    storage's first moment)."""
    host = model.function(allocation.function)
    if host is None or host.body is None:
        return None
    span = allocation.span
    for stmt in host.body.walk():
        if stmt.kind == "block":
            for child in stmt.children:
                if child.kind in ("expr", "decl") and child.span.file == span.file and \
                        child.span.start <= span.start and span.end <= child.span.end:
                    return child
    return None


def entry_only_functions(model: TranslationUnit, irs: dict, entered: set[str]) -> frozenset:
    """Functions whose device work uses no storage but ``entered`` globals (their own
    kernels only; no call of a function with device work): ``initialize_constants``. No
    data region is planned for them, and a caller's region is placed around its other
    device work, as if their calls had none."""
    if not entered:
        return frozenset()
    refs: dict[int, list] = {}
    for ref in model.array_refs:
        if ref.directive is not None:
            refs.setdefault(ref.directive, []).append(ref)
    out = set()
    for name, ir in irs.items():
        kernels = [n.directive for n in ir.root.walk() if n.kind == "kernel"]
        calls_device = any(c.name in irs and irs[c.name].has_device
                           for c in ir.function.calls)
        if kernels and not calls_device and all(
                norm_text(r.array) in entered for k in kernels for r in refs.get(k, ())
                if r.pointer and not r.region_local) and any(
                norm_text(r.array) in entered for k in kernels for r in refs.get(k, ())):
            out.add(name)
    return frozenset(out)

