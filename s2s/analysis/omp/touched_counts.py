"""A pointer's element count read off the ranges its kernels touch (issue 28: idempotence).

A pointer whose storage has no count the plan can read (``double *v = g.val;`` before ``g``
is rewritten) used to be mapped per construct by the safety net: ``map(to: v[0:n])``, the
range the kernel touches. A second run then read that clause as the count (omp.sizes
takes the program's own map clauses as counts) and mapped ``v[0:n]`` once around the
kernels: the first run's output was not its own fixed point. The first run now takes the
same count where it is as safe as a clause a careful human would write around the kernels:

* every device use of the storage is in the function itself, by the storage's own name
  (a callee's kernel would need its range in the caller's names);
* every target construct of the region that uses it runs whenever the region's statements
  run: only blocks and loops that surely run their body once around it (a ``do`` loop, a
  counting loop with a positive constant trip count or an early exit that rules out an empty
  one: omp.cover.surely_entered), and no statement before it in the region that may leave
  (``break``, ``continue``, ``return``, ``goto``, a call that never returns). A kernel under
  ``if (n <= cap)`` or ``for (s = 0; s < steps; s++)`` says nothing about the storage when it
  does not run, and the data region would still copy the hull in: past the storage where that
  is smaller (``steps == 0`` and one element allocated);
* each construct's range is bounded (omp.fallback) and starts at 0, and the ranges have a
  hull (their bounds differ by constants): that hull's length is the count;
* the pointer is not re-pointed inside the region.

Kernels touch only what lies inside their ranges, so a data region mapping the hull holds
every element the device reads or writes; the host's elements outside it are never copied.
"""

from __future__ import annotations

from s2s.analysis.omp.cover import surely_entered
from s2s.analysis.omp.facts import may_end_program, never_returning
from s2s.analysis.omp.fallback import construct_maps
from s2s.analysis.omp.ir import Node
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import hull, same_value
from s2s.model import TranslationUnit


def touched_count(model: TranslationUnit, source: bytes, function, label: str, uses,
                  start: int, end: int, region: tuple[Node, ...] | list[Node] = ()
                  ) -> str | None:
    """``[0:len]``: the hull of what the target constructs of ``function`` between ``start``
    and ``end`` touch of ``label`` (module doc), or None where that is no safe count.
    ``uses``: the survey's device uses of ``label`` (function, local name, ...); ``region``:
    the region's top-level IR nodes (omp.region.region_nodes), where each construct must
    surely run (none given: nothing is shown to run)."""
    if not uses or any(use[0] != function.name or use[1] != label for use in uses):
        return None
    if any(c.function == function.name and start <= c.span.start < end and
           norm_text(c.target) == label for c in model.pointer_copies):
        return None
    sections = []
    for index, directive in enumerate(model.directives):
        if not directive.is_target_region or directive.function != function.name or \
                not start <= directive.span.start < end:
            continue
        if not any(r.directive == index and norm_text(r.array) == label
                   for r in model.array_refs):
            continue
        if not surely_runs(model, function, index, region):
            return None
        found, unbounded = construct_maps(model, source, index, (label,))
        items = [item for _type, item in found.items] if found is not None else []
        if unbounded is not None or len(items) != 1 or not items[0].startswith(label + "["):
            return None
        sections.append(items[0][len(label):])
    whole = hull(sections) if sections else None
    if whole is None:
        return None
    lower, length = whole[1:-1].split(":", 1)
    return f"[0:{length}]" if same_value(lower, "0") else None


def surely_runs(model: TranslationUnit, function, index: int, region) -> bool:
    """Whether target construct ``index`` runs every time the ``region``'s statements (its
    top-level IR nodes) run; True for a directive outside them or no target construct (a
    data directive's clause holds where it is)."""
    directive = model.directives[index]
    node = _kernel_node(region, index)
    if not directive.is_target_region or node is None and not any(
            top.stmt is not None and top.stmt.span.file == directive.span.file and
            top.stmt.span.start <= directive.span.start < top.stmt.span.end for top in region):
        return True
    return _surely_runs(model, function, node, region)


def _kernel_node(region, index: int) -> Node | None:
    """The IR node of target construct ``index`` among the ``region``'s nodes."""
    for top in region:
        for node in top.walk():
            if node.kind == "kernel" and node.directive == index:
                return node
    return None


def _surely_runs(model: TranslationUnit, function, kernel: Node | None, region) -> bool:
    """Whether ``kernel`` runs every time the ``region``'s statements run (module doc): each
    enclosing node up to the region is a block or a loop that surely runs its body once, and
    nothing before it on that way may leave."""
    tops = {id(top) for top in region}
    never = never_returning(model)
    node = kernel
    while node is not None and id(node) not in tops:
        parent = node.parent
        if parent is None:
            return False
        if parent.kind == "seq" and not parent.jump:
            before = parent.children[:parent.children.index(node)]
            if any(_may_leave(sibling, never) for sibling in before):
                return False
        elif parent.kind != "loop" or node is not parent.body or not (
                parent.loop_kind == "do" or
                parent.loop_kind == "for" and surely_entered(parent, function, model, None)):
            return False
        node = parent
    if node is None:
        return False
    top = next(i for i, candidate in enumerate(region) if candidate is node)
    return not any(_may_leave(sibling, never) for sibling in region[:top])


def _may_leave(node: Node, never: frozenset[str], loops: int = 0, switches: int = 0) -> bool:
    """Whether running ``node`` may skip what follows it: a ``return`` or ``goto``, a
    ``break``/``continue`` not inside a loop (or ``switch``) of its own, or a statement that
    calls a function that never returns (``exit``, a ``fatal`` helper)."""
    if node.kind == "jump":
        if node.jump in ("return", "goto"):
            return True
        if node.jump == "continue":
            return loops == 0
        if node.jump == "break":
            return loops == 0 and switches == 0
    if node.kind in ("leaf", "jump") and node.stmt is not None and \
            any(may_end_program(stmt, never) for stmt in node.stmt.walk()):
        return True
    inner_loops = loops + (node.kind == "loop")
    inner_switches = switches + (node.kind == "switch")
    return any(_may_leave(part, never, inner_loops, inner_switches) for part in node.parts())
