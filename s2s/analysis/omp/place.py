"""Where each ``target update`` goes, and what it copies.

A copy is needed where the dataflow finds an access to a stale copy. It goes before the
statement holding that access, moved out of called functions when they do not write the array
on the other side (so it happens only in the calling contexts that need it), out of loops that
do not write it on the other side, never out of a branch; it copies only the elements the
statement reads when they can be bounded. A host read stays inside such loops, copying only
its own elements on every trip, where that moves fewer bytes (omp.probe).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from s2s.analysis.omp.callee_counts import section_in_callee
from s2s.analysis.omp.ir import Access, CallEvent, Copy, Node, Update
from s2s.analysis.omp.probe import cheapest_anchor, element_parts, items_cost
from s2s.analysis.omp.sections import host_sections
from s2s.analysis.omp.sizes import alias_groups, clause_section, root_name
from s2s.analysis.omp.state import Unsupported, norm_text
from s2s.analysis.polynomial import NotPoly, disjoint, poly, same_value
from s2s.model import SourceSpan, Stmt, TranslationUnit


@dataclass(frozen=True)
class PlannedUpdate:
    """``target update to|from(name section)`` before ``anchor`` (in ``function``); ``at``
    is where the line goes (the anchor, or the pragma line of its directive)."""

    function: str
    anchor: Stmt
    at: SourceSpan
    wrap: bool  # the anchor is the body of a control statement: add braces around it
    motion: str  # 'to' or 'from'
    item: str  # e.g. u[0:n]
    reason: str  # what needs it, with file:line:col
    after: bool = False  # goes after the anchor (a host write pushed to the device)


def insertion_span(stmt: Stmt, model: TranslationUnit) -> SourceSpan:
    """A statement that a directive governs starts, for insertions, at the pragma."""
    if stmt.directive is None:
        return stmt.span
    directive = model.directives[stmt.directive]
    while directive.parent is not None and \
            model.directives[directive.parent].stmt_span is not None and \
            model.directives[directive.parent].stmt_span.start in (stmt.span.start,
                                                                   directive.span.start):
        directive = model.directives[directive.parent]
    return directive.span


def source_texts(source: bytes):
    """Source text of a statement or expression of the planned file."""

    def text(item) -> str:
        return source[item.span.start:item.span.end].decode("utf-8", "replace")

    return text


def place_copy(failure, irs, region_nodes, lengths, model, root: str, text,
               tops: set[int] | None = None, branches: bool = False) -> list[PlannedUpdate]:
    """The ``target update``s that fix ``failure``, placed and recorded in the IR.
    ``tops``: the ids of ``region_nodes`` (a solver asking once per copy passes them);
    ``branches``: a copy may go before a branch holding the access (see hoist_path)."""
    if failure.access is None:
        return _place_join(failure, irs, lengths, model, root)
    failure = _lift_out_of_calls(failure, irs, root)
    if failure.node.kind == "loop" and any(e is failure.access for e in failure.node.cond):
        placed = _place_before_cond(failure, irs, lengths, model, root)
        if placed is not None:
            return placed
    other = "D" if failure.side == "H" else "H"
    path = hoist_path(failure.node, other, failure.local, region_nodes, irs, tops, branches)
    anchor = path[-1]
    motion = "from" if failure.side == "H" else "to"
    group = frozenset(alias_groups(model, irs[failure.function].function, 0, 0)
                      .get(failure.local, ()))
    items, scoped = _hoisted_items(anchor, failure, irs, lengths, model, root, text, group)
    if failure.side == "H" and "D" in failure.valid and failure.function == root:
        inner = element_anchor(path, failure.local, text, group, failure.dirty, irs, items)
        if inner is not anchor:
            # Copies of the elements read, before each read (omp.probe): fewer bytes.
            anchor, scoped = inner, True
            parts = element_parts(inner, failure.local, text, group, failure.dirty)
            items = [failure.local + p for p in parts]
    for _ in items:
        anchor.before.append(Update(failure.local, failure.side, scoped=scoped))
    access = failure.access
    where = access.ref.span.location() if access.ref is not None else \
        failure.node.stmt.span.location() if failure.node.stmt is not None else failure.function
    side = "host" if failure.side == "H" else "device"
    what = "reads" if access.reads else "writes part of"
    reason = f"the {side} {what} {failure.local} at {where}"
    wrap = anchor.parent is not None and anchor.parent.kind != "seq"
    return [PlannedUpdate(failure.function, anchor.stmt, insertion_span(anchor.stmt, model),
                          wrap, motion, item, reason) for item in items]


def _hoisted_items(anchor, failure, irs, lengths, model, root: str, text, group
                   ) -> tuple[list[str], bool]:
    """What a copy before ``anchor`` moves, and whether it is scoped to that statement:
    the sections the statement reads, or those stale since both copies were fresh, or the
    whole array."""
    parts = host_sections([anchor], failure.local, text, aliases=group) \
        if failure.side == "H" and "D" in failure.valid else None
    if failure.side == "D" and failure.dirty and "H" in failure.valid:
        # Only the elements the host wrote since both copies were fresh are stale there.
        parts = sorted(failure.dirty)
    whole = _item(failure, irs, lengths, model, root, text)
    if parts is not None and any(same_section(failure.local + p, whole) for p in parts):
        parts = None
    scoped = parts is not None and failure.side == "H"
    written = failure.dirty if failure.side == "H" and "D" in failure.valid and \
        failure.function == root else None
    if written and any(same_section(failure.local + w, whole) for w in written):
        written = None  # kernels may have written all of it
    if written:
        # Only what kernels wrote since both copies were fresh is stale on the host.
        if parts is not None:
            parts = [p for p in parts if not all(disjoint(p, w) for w in written)] or parts
        if parts is None or len(parts) > len(written):
            parts, scoped = sorted(written), False
    return ([failure.local + p for p in parts] if parts else [whole]), scoped


def element_anchor(path: list[Node], name: str, text, aliases: frozenset, written, irs,
                   hoisted: list[str]) -> Node:
    """Where a host read's copy goes among ``path`` (see :func:`hoist_path`): in front of
    the read when copying the elements it reads there is cheaper than ``hoisted``, the
    copies before ``path[-1]`` (omp.probe.cheapest_anchor). Not when the loops left out
    write the array on the host: the copies would bring stale elements over fresh ones."""
    if len(path) < 2 or writes_in(path[-1], "H", name, irs, set()):
        return path[-1]
    return cheapest_anchor(path, name, text, aliases, written, items_cost(hoisted))


def push_candidates(nodes: list[Node], section_of, reading: bool = False
                    ) -> list[tuple[Node, Access, str]]:
    """Host statements that write one element of an array, in a plain block of the region's
    own function: (node, access, ``[e:1]``). Where the device holds the newest copy of the
    array, such an element is pushed to the device right after the statement instead of
    fetching the whole array first (``a[0] = 8.0;`` pinning a boundary). With ``reading``,
    the statements that read the element as well (``src[f * w + f] += 0.5f;``), run by no
    loop of the region but the region's own statement (omp.flow pushes those where both
    copies are fresh, omp.solver decides whether to)."""
    if section_of is None:
        return []
    out = []
    for top in nodes:
        for node in top.walk():
            if node.kind != "leaf" or node.parent is None or not (
                    node.parent.kind == "seq" or _sole_body(node)):
                continue
            siblings = node.parent.children
            later = siblings[siblings.index(node) + 1:] if node.parent.kind == "seq" else []
            if later and later[0].jump in ("case", "default", "label"):
                continue
            for event in node.events:
                if isinstance(event, Access) and event.side == "H" and event.writes and \
                        event.reads == reading and (not reading or _loops_up_to(node, top) <= 1):
                    section = section_of(event)
                    if section is not None:
                        out.append((node, event, section))
    return out


def _loops_up_to(node: Node, top: Node) -> int:
    """The loops from ``node`` up to the region's statement ``top`` (``top`` included)."""
    count, current = 0, node
    while current is not None:
        count += current.kind == "loop"
        if current is top:
            break
        current = current.parent
    return count


def _sole_body(node: Node) -> bool:
    """The statement is the whole branch of an ``if`` or body of a loop, written without
    braces (``if (k == 3) a[5] = 1.0;``): a push after it needs braces around both."""
    parent = node.parent
    return node.stmt is not None and (parent.kind == "if" and node in parent.children or
                                      parent.kind == "loop" and node is parent.body)


def push_after(node: Node, access: Access, section: str, model) -> PlannedUpdate:
    """The ``target update to`` of a pushed element: before the next statement of the
    block, or after the statement when it is the block's last (with braces around both
    when the statement is a branch or loop body of its own)."""
    where = access.ref.span.location() if access.ref is not None else ""
    reason = f"the host writes {access.name}{section} at {where}, where the device copy is " \
             "the newest elsewhere"
    if node.parent.kind != "seq":
        return PlannedUpdate(node.function, node.stmt, node.stmt.span, True, "to",
                             access.name + section, reason, after=True)
    siblings = node.parent.children
    later = siblings[siblings.index(node) + 1:]
    if later and later[0].stmt is not None:
        following = later[0].stmt
        return PlannedUpdate(node.function, following, insertion_span(following, model),
                             False, "to", access.name + section, reason)
    return PlannedUpdate(node.function, node.stmt, node.stmt.span, False, "to",
                         access.name + section, reason, after=True)


def _lift_out_of_calls(failure, irs, root: str):
    """A copy needed inside a called function goes before the call in ``root`` when no
    function on the way writes on the other side: it then happens only in the calling
    contexts that need it (a copy inside a function shared by several call sites would run
    in all of them, also where it would copy stale data)."""
    if failure.function == root or not failure.chain:
        return failure
    other = "D" if failure.side == "H" else "H"
    innermost = len(failure.chain) - 1
    for level, (call_node, _) in enumerate(failure.chain):
        # The function holding the access may write other storage on the other side (a
        # local temporary); the ones on the way may not write anything there.
        name = failure.local if level == innermost else ""
        for event in call_node.events + call_node.cond + call_node.step:
            if isinstance(event, CallEvent) and any(
                    callee in irs and writes_in(irs[callee].root, other, name, irs, set())
                    for callee in event.targets):
                return failure
    outer_node, outer_frame = failure.chain[0]
    if outer_frame.function != root:
        return failure
    return replace(failure, node=outer_node, function=root, local=failure.name, chain=())


def _place_join(failure, irs, lengths, model, root: str) -> list[PlannedUpdate]:
    loop = failure.node
    loop.before.append(Update(failure.local, failure.side))
    motion = "from" if failure.side == "H" else "to"
    if failure.dirty and (failure.side, failure.function) in (("D", root), ("H", root)) and \
            ("H" if failure.side == "D" else "D") in failure.valid:
        # Stale only where the other side wrote since both were fresh.
        items = [failure.local + part for part in sorted(failure.dirty)]
    else:
        items = [_item(failure, irs, lengths, model, root)]
    side = "host" if failure.side == "H" else "device"
    reason = (f"iterations of the loop at {loop.stmt.span.location()} leave {failure.local} "
              f"fresh on the {side} only")
    wrap = loop.parent is not None and loop.parent.kind != "seq"
    return [PlannedUpdate(failure.function, loop.stmt, insertion_span(loop.stmt, model), wrap,
                          motion, item, reason) for item in items]


def _place_before_cond(failure, irs, lengths, model, root: str) -> list[PlannedUpdate] | None:
    """A loop's condition is evaluated after every trip, not only once: a copy for a read
    there (``do { kernels } while (stop[0])``, the flag a kernel raised) goes at the end of
    the body. None where the end of the body is not the only way to the condition (a
    ``continue``), for a ``for`` (its step runs in between), or when that copy is placed
    already (the read failing is then the first test of a ``while``: the copy goes before
    the loop as for any other statement)."""
    loop = failure.node
    body = loop.body
    if loop.loop_kind not in ("do", "while") or body is None or body.kind != "seq" or \
            not body.children or body.children[-1].stmt is None or \
            body.children[-1].kind == "jump" or _continues(body) or \
            any(u.name == failure.local and u.side == failure.side for u in loop.after_body):
        return None
    motion = "from" if failure.side == "H" else "to"
    access = failure.access
    where = access.ref.span.location() if access.ref is not None else \
        loop.stmt.span.location()
    reason = f"the loop condition reads {failure.local} at {where} after every trip"
    item = _item(failure, irs, lengths, model, root)
    first = len(body.children)
    while first > 0 and _quiet(body.children[first - 1], failure.local):
        first -= 1
    if first < len(body.children):
        # before the statements that end the body without touching the array on the
        # device (``iter++; printf("%d", delta[0]);``): one copy serves them and the test
        anchor = body.children[first]
        if any(u.name == failure.local and u.side == failure.side for u in anchor.before):
            return None
        anchor.before.append(Update(failure.local, failure.side))
        return [PlannedUpdate(failure.function, anchor.stmt, insertion_span(anchor.stmt, model),
                              False, motion, item, reason)]
    last = body.children[-1]
    loop.after_body.append(Update(failure.local, failure.side))
    return [PlannedUpdate(failure.function, last.stmt, last.stmt.span, False, motion, item,
                          reason, after=True)]


def _quiet(node: Node, name: str) -> bool:
    """A plain host statement that neither calls a function of the program, nor jumps, nor
    writes or copies the pointer ``name`` nor touches it on the device: a copy of ``name``
    made before it still holds after it."""
    for part in node.walk():
        if part.stmt is None or part.kind in ("kernel", "jump") or part.jump:
            return False
        for event in part.events + part.cond + part.step:
            if isinstance(event, CallEvent) or \
                    isinstance(event, Copy) and name in (event.target, event.source) or \
                    isinstance(event, Access) and event.name == name and \
                    (event.side == "D" or event.writes):
                return False
    return True


def _continues(node: Node) -> bool:
    """Whether a ``continue`` of the loop whose body is ``node`` is in it (not one of a
    nested loop)."""
    return any(child.jump == "continue" or child.kind != "loop" and _continues(child)
               for child in node.parts())


def same_section(a: str, b: str) -> bool:
    """``u[0:n]`` and ``u[0 : n]``, compared as polynomials where possible."""
    pa, pb = a.partition("["), b.partition("[")
    if pa[0] != pb[0] or not pa[2] or not pb[2]:
        return a == b
    try:
        return [poly(x) for x in pa[2].rstrip("]").split(":")] == \
            [poly(x) for x in pb[2].rstrip("]").split(":")]
    except NotPoly:
        return norm_text(a) == norm_text(b)


def hoist_path(node: Node, other: str, name: str, region_nodes: list[Node], irs,
               tops: set[int] | None = None, branches: bool = False) -> list[Node]:
    """The statements a copy for an access in ``node`` may go before, innermost first:
    ``node``, then each loop around it that does not write ``name`` on the ``other`` side,
    up to the region's top statements, never out of a branch (that would copy on paths
    that do not need it), unless ``branches``: then before the branch, when it does not
    write ``name`` on the ``other`` side. (The plan asks for that only where copies inside
    branches leave an array fresh on neither side on some path: ``if (t != result)
    memcpy(result, t, ...)`` after a swap loop needs ``t`` on the host on both paths.)"""
    tops = tops if tops is not None else {id(n) for n in region_nodes}
    path = [node]
    parent = node.parent
    while parent is not None and id(path[-1]) not in tops:
        if parent.kind in ("if", "switch") and (
                not branches or writes_in(parent, other, name, irs, set())):
            break
        if parent.kind in ("if", "switch"):
            path.append(parent)
        if parent.kind == "loop":
            if writes_in(parent, other, name, irs, set()):
                break
            path.append(parent)
        parent = parent.parent
    return path


def writes_in(loop: Node, side: str, name: str, irs, seen: set) -> bool:
    """Whether ``loop`` may write ``name`` or a pointer copied from or to it on ``side``
    (for called functions: any storage they did not allocate), or reassigns it.
    ``name`` '' means any storage."""
    group = _copy_group(loop, name) if name else set()
    for node in loop.walk():
        for event in node.events + node.cond + node.step:
            if isinstance(event, CallEvent):
                for callee in event.targets:
                    if callee in irs and callee not in seen:
                        seen.add(callee)
                        if writes_in(irs[callee].root, side, "", irs, seen):
                            return True
            elif isinstance(event, Copy) and name and root_name(event.target) in group:
                return True
            elif isinstance(event, Access) and event.side == side and event.writes and \
                    (not name or root_name(event.name) in group):
                return True
    return False


def _copy_group(loop: Node, name: str) -> set[str]:
    """``name``'s root and every pointer connected to it by copies inside ``loop``'s
    function."""
    top = loop
    while top.parent is not None:
        top = top.parent
    edges = [(root_name(e.target), root_name(e.source)) for n in top.walk()
             for e in n.events + n.cond + n.step if isinstance(e, Copy) and e.source]
    group, grew = {root_name(name)}, True
    while grew:
        grew = False
        for a, b in edges:
            if (a in group) != (b in group):
                group |= {a, b}
                grew = True
    return group


def _item(failure, irs, lengths, model, root: str, text=None) -> str:
    """``name[0:len]`` in the names of the function where the copy goes."""
    labels = [label for label in failure.labels if label in lengths]
    section = lengths[labels[0]] if labels else ""
    if section and failure.function != root:
        section = _by_parameter(section, failure.scalars) or \
            _from_call(section, failure, irs, model, root, text) or \
            _translate(section, irs[failure.function].function, model, failure.local)
    return f"{failure.local}{section}"


def _from_call(section: str, failure, irs, model, root: str, text) -> str | None:
    """The section in the callee's own names, through the call's arguments
    (omp.callee_counts), for a callee the planned function calls directly."""
    if text is None or len(failure.chain) != 1:
        return None
    call_node = failure.chain[0][0]
    calls = [e for e in call_node.events + call_node.cond + call_node.step
             if isinstance(e, CallEvent) and e.callee == failure.function and
             not e.alternatives]
    if len(calls) != 1:
        return None
    caller, callee = irs[root].function, irs[failure.function].function
    return section_in_callee(section, caller, model.in_function("var_uses", caller.name),
                             callee, model.in_function("var_uses", callee.name), calls[0].args)


def _by_parameter(section: str, scalars: tuple) -> str | None:
    """``[0:n]`` of the caller as ``[0:len]`` in a callee whose parameter ``len`` received
    ``n``."""
    inner = section.strip("[]").split(":")
    if len(inner) != 2 or not same_value(inner[0], "0"):
        return None
    for param, argument in scalars:
        if same_value(argument, inner[1]):
            return f"[0:{param}]"
    return None


def _translate(section: str, function, model, local: str) -> str:
    """A section of the caller's names in the callee ``function``: use the callee's own map
    clause for ``local`` when it has one."""
    found = clause_section(model, function.name, local)
    if found is not None:
        return f"[{found[0]}:{found[1]}]"
    raise Unsupported(f"no section of '{local}' is known inside '{function.name}'")
