"""Element copies for host reads inside loops: when copying ``a[e:1]`` before each read beats
one copy hoisted out of the loops.

A host read ``a[e]`` of an array the device holds the newest copy of needs a ``target
update from`` first. Hoisted out of the loops around it (the default, see omp.place), the
copy runs once but has to cover every element the loops may read; when the index is data
dependent (``i = probe[k]``) that is the whole array. Left in front of the reading statement
it copies only the elements that statement reads (``a[i:1]``, a *scoped* update), once per
trip of the loops it stays in.

The rule (:func:`cheapest_anchor`) minimizes bytes first, then the number of copies,
because the target is to copy no more than a careful hand-written mapping on either count
(bytes dominate the cost of a transfer, the count only its latency): a candidate's bytes are
the element count of its copies times the trip counts of the loops it stays in. Only known
numbers compete: an element count that depends on a program variable (``x[0:n]``, or a whole
array) is a problem size and counts as larger than any constant, and a loop whose trip count
is not a constant (``for (k = 0; k < m; k++)``, ``while``) makes the copies inside it
unbounded, so they are never chosen. Equal costs keep the outermost place (fewer
directives, the existing behavior).

:func:`probe_tail` uses the same rule to extend a data region over trailing host statements
after its last device work: where they read such elements, the copies go inside the region
before the reads instead of a whole read-back where the region ends.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.ir import Access, CallEvent, Copy, Node
from s2s.analysis.omp.loops import counting_loop
from s2s.analysis.omp.sections import host_sections
from s2s.analysis.polynomial import NotPoly, assigned_in, disjoint, poly

UNBOUNDED = float("inf")


def constant_trips(loop: Node, text) -> int | None:
    """How many times a counting ``for`` loop with constant bounds runs its body (an upper
    bound: a ``break`` only shortens it), or None when that is not a known constant."""
    if loop.kind != "loop" or loop.stmt is None or loop.stmt.kind != "for":
        return None
    found = counting_loop(loop.stmt, stride=True)
    if found is None:
        return None
    var, first_text, op, bound_text, step = found
    first, bound = _constant(first_text), _constant(bound_text)
    if first is None or bound is None or step <= 0:
        return None
    body = loop.stmt.body
    if body is not None and assigned_in(var, text(body), declarations=False):
        return None  # the body moves the counter (a declaration only shadows it)
    last = bound if op == "<=" else bound - 1
    return max(0, (last - first) // step + 1)


def _constant(expression: str) -> int | None:
    try:
        value = poly(expression)
    except NotPoly:
        return None
    return value.get((), 0) if set(value) <= {()} else None


def element_parts(anchor: Node, name: str, text, aliases: frozenset, written
                  ) -> list[str] | None:
    """The ``[lo:len]`` sections of ``name`` that ``anchor`` reads (:func:`host_sections`),
    without those no kernel wrote since both copies were fresh (``written``: the stale
    sections, None when not known); None when the reads cannot be bounded."""
    parts = host_sections([anchor], name, text, aliases=aliases)
    if parts is not None and written:
        parts = [p for p in parts if not all(disjoint(p, w) for w in written)] or parts
    return parts


def items_cost(items: list[str]) -> tuple[float, int]:
    """(elements, directives) of the copies ``name[lo:len]`` (a bare name: the whole
    array); elements UNBOUNDED when a length is not a constant."""
    elements = 0.0
    for item in items:
        section = item.partition("[")[2]
        length = _constant(section.rstrip("]").split(":")[1]) if ":" in section else None
        elements += UNBOUNDED if length is None else length
    return elements, len(items)


def cheapest_anchor(path: list[Node], name: str, text, aliases: frozenset, written,
                    hoisted_cost: tuple[float, int]) -> Node:
    """The statement of ``path`` (the reading statement, then each loop around it the copy
    may be hoisted out of, outermost last) whose copies move the fewest bytes, then the
    fewest copies (module docstring). ``hoisted_cost`` is the cost of the copy before
    ``path[-1]`` (which may be a whole-array copy no scoped section describes)."""
    best, best_cost = path[-1], hoisted_cost
    trips = 1
    for index in range(len(path) - 2, -1, -1):  # outermost first: ties keep the outer one
        count = constant_trips(path[index + 1], text)
        if count is None:
            return best  # copies inside a loop of unknown trip count: unbounded
        trips *= count
        parts = element_parts(path[index], name, text, aliases, written)
        if parts is None:
            continue
        cost = items_cost([name + p for p in parts])
        total = (cost[0] * trips, cost[1] * trips)
        if total < best_cost:
            best, best_cost = path[index], total
    return best


def probe_tail(block: Node, last: Node, tracked: frozenset, text, served_inside) -> list[Node]:
    """The statements after ``last`` in ``block`` over which the data region extends: up to
    the last one holding a host read of a tracked array whose copies go inside a loop of it
    (``served_inside(node, top, name)``, by :func:`cheapest_anchor`). Stops before a
    statement that may leave the block (``return``, ``goto``, a label, a jump outside any
    loop of its own), calls a function of the file, reassigns a pointer or frees storage:
    the region's exit must run after the reads, with the mapped storage still in place."""
    siblings = block.children[block.children.index(last) + 1:]
    tail: list[Node] = []
    end = 0
    for sibling in siblings:
        if sibling.stmt is None or _ends_tail(sibling, text):
            break
        tail.append(sibling)
        if _reads_elements(sibling, tracked, served_inside):
            end = len(tail)
    return tail[:end]


def _reads_elements(top: Node, tracked: frozenset, served_inside) -> bool:
    return any(isinstance(event, Access) and event.side == "H" and event.reads and
               event.name in tracked and served_inside(node, top, event.name)
               for node in top.walk() for event in node.events + node.cond + node.step)


_RELEASES = re.compile(r"\b(?:free|realloc|delete)\b")


def _ends_tail(top: Node, text) -> bool:
    """Whether ``top`` may leave the block other than by reaching its end, calls a function
    of the file, copies a pointer or may release storage."""
    if _RELEASES.search(text(top.stmt)):
        return True

    def visit(node: Node, depth: int) -> bool:
        if node.jump in ("return", "goto", "label"):
            return True
        if node.jump in ("break", "continue") and depth == 0:
            return True
        if any(isinstance(e, (CallEvent, Copy)) for e in node.events + node.cond + node.step):
            return True
        inner = depth + (node.kind in ("loop", "switch"))
        return any(visit(part, inner) for part in node.parts())

    return visit(top, 0)
