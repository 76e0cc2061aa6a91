"""A structured control-flow IR of host functions for OpenMP data-mapping analysis.

Each host function's statement tree (``s2s.model.host.Stmt``) becomes a tree of nodes whose
leaves carry *events* in execution order: an array access on the host or on the device (a
whole target region is one ``kernel`` node), a pointer copy, or a call to a function of the
same file (analyzed by inlining). Loops, branches, switches and jumps keep their structure, so
the dataflow in :mod:`s2s.analysis.omp_flow` is an abstract interpretation over the
structured control-flow graph, and placement can reason about "this loop" or "this branch".

Full writes are recognized where they matter for the amount of data moved: a ``for`` loop
``for (i = 0; i < E; i++)`` (host loop or target region) whose only accesses to an array are
``a[i]`` and whose first one is an unconditional plain write overwrites ``a[0:E]``; no copy of
the old contents is then needed.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from s2s.analysis.polynomial import (
    NotPoly,
    Poly,
    add,
    assigned_in,
    mul,
    poly,
    render,
    scale,
    substitute,
)
from s2s.model import ArrayRef, HostFunction, PointerCopy, Stmt, TranslationUnit

LOOP_KINDS = ("for", "while", "do", "range_for")
JUMP_KINDS = ("break", "continue", "return", "goto")


@dataclass(frozen=True)
class Access:
    """An access to the storage named ``name`` (in the function's own names) on ``side``
    ('H' host, 'D' device). ``full`` is the element count ``E`` when the access overwrites
    elements ``[0:E)`` completely, else None."""

    name: str
    side: str
    mode: str
    ref: ArrayRef | None
    full: str | None = None
    #: a device write's ``[lo:len]`` hull over the kernel's loops (None: not bounded)
    extent: str | None = None

    @property
    def reads(self) -> bool:
        return self.mode in ("read", "readwrite")

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "readwrite")


@dataclass(frozen=True)
class Copy:
    """Pointer copy ``target = source`` (source None: fresh or unknown storage)."""

    target: str
    source: str | None
    offset: bool = False


@dataclass(frozen=True)
class CallEvent:
    """A call to ``callee`` (a function with a body in this file) and its arguments as
    written; the interpreter binds parameters to them."""

    callee: str
    args: tuple[str, ...]
    offset: int


@dataclass(frozen=True)
class Update:
    """A planned ``target update``: make ``name``'s copy on ``side`` fresh. A ``scoped``
    update moves only the part the statement it precedes reads: the copy counts as fresh
    while that statement runs, and as before afterwards."""

    name: str
    side: str
    scoped: bool = False


@dataclass(eq=False)
class Node:
    """One statement of the IR. ``kind``: seq, leaf, loop, if, switch, kernel, jump."""

    kind: str
    stmt: Stmt | None
    function: str
    events: list = field(default_factory=list)  # leaf/kernel events; loop: run once before
    cond: list = field(default_factory=list)  # loop/if/switch condition events
    step: list = field(default_factory=list)  # for-loop step events
    children: list[Node] = field(default_factory=list)  # seq items; if: [then, else]
    init: Node | None = None
    body: Node | None = None
    loop_kind: str = ""
    jump: str = ""
    directive: int | None = None
    parent: Node | None = None
    before: list = field(default_factory=list)  # planned updates executed before this node
    #: names whose element written here is pushed to the device right after (planned)
    write_through: set = field(default_factory=set)

    def walk(self):
        yield self
        for child in self.parts():
            yield from child.walk()

    def parts(self) -> list[Node]:
        out = [n for n in (self.init,) if n is not None] + list(self.children)
        if self.body is not None:
            out.append(self.body)
        return out


@dataclass
class FunctionIR:
    """The IR of one function, with facts the planner needs."""

    function: HostFunction
    root: Node
    has_device: bool = False
    #: integer locals assigned once, where declared: name -> initializer text
    definitions: dict = field(default_factory=dict)


_DECLARATION = re.compile(r"^\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|long\s+long|size_t|"
                          r"ptrdiff_t|short|unsigned)\s+(?:const\s+)?([^;]+);\s*$", re.S)
_DECLARATOR = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*$", re.S)


def _top_level_split(text: str) -> list[str]:
    """``a = f(x, y), b = 2`` -> ['a = f(x, y)', ' b = 2']: commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return parts + [current]


_MEMBER = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_LOOP_HEAD = re.compile(r"^\s*(?:(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|long\s+long|"
                        r"size_t|ptrdiff_t|short)\s+)?([A-Za-z_]\w*)\s*=\s*(.+?)\s*;?\s*$", re.S)
_LOOP_COND = re.compile(r"^\s*([A-Za-z_]\w*)\s*(<=|<)\s*(.+?)\s*$", re.S)
_LOOP_STEP = re.compile(r"^\s*(?:\+\+\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*\+\+|([A-Za-z_]\w*)\s*\+=\s*"
                        r"([1-9]\d*))\s*$")


def counting_loop(stmt: Stmt, text, stride: bool = False
                  ) -> tuple[str, str, str, str] | tuple[str, str, str, str, int] | None:
    """(counter, first value, ``<`` or ``<=``, bound) of ``for (i = a; i < b; i++)`` (also
    ``++i``, ``i += 1``, ``<=``); None for any other loop. With ``stride``, loops stepping
    by a constant ``i += c`` count too, and the step is a fifth element."""
    if stmt is None or stmt.kind != "for" or not (stmt.init and stmt.cond and stmt.step):
        return None
    head, cond, step = _LOOP_HEAD.match(text(stmt.init)), _LOOP_COND.match(text(stmt.cond)), \
        _LOOP_STEP.match(text(stmt.step))
    if not (head and cond and step) or cond.group(1) != head.group(1) or \
            head.group(1) not in step.groups()[:3]:
        return None
    by = int(step.group(4)) if step.group(4) else 1
    if stride:
        return head.group(1), head.group(2), cond.group(2), cond.group(3), by
    return (head.group(1), head.group(2), cond.group(2), cond.group(3)) if by == 1 else None


def loop_range(stmt: Stmt, text) -> tuple[str, Poly, Poly] | None:
    """(counter, first value, last value) of a counting ``for`` loop (constant strides too:
    the last value is then ``first + step * ((last - first) / step)``)."""
    found = counting_loop(stmt, text, stride=True)
    if found is None:
        return None
    var, first_text, op, bound_text, step = found
    try:
        first, bound = poly(first_text), poly(bound_text)
    except NotPoly:
        return None
    last = bound if op == "<=" else add(bound, {(): -1})
    if step != 1:
        span = render(add(last, scale(first, -1)))
        last = add(first, {(f"(({span}) / {step})",): step})
    return var, first, last


class IRBuilder:
    """Builds :class:`FunctionIR` for every function of a translation unit."""

    def __init__(self, model: TranslationUnit, source: bytes):
        self.model = model
        self.source = source
        self.bodies = {f.name: f for f in model.functions if f.body is not None}
        self.refs_by_function: dict[str | None, list[ArrayRef]] = {}
        for ref in model.array_refs:
            self.refs_by_function.setdefault(ref.function, []).append(ref)
        self.copies_by_function: dict[str | None, list[PointerCopy]] = {}
        for copy in model.pointer_copies:
            self.copies_by_function.setdefault(copy.function, []).append(copy)

    def text(self, stmt_or_expr) -> str:
        span = stmt_or_expr.span
        return self.source[span.start:span.end].decode("utf-8", "replace")

    def build_all(self) -> dict[str, FunctionIR]:
        out = {}
        for name, function in self.bodies.items():
            out[name] = self.build(function)
        changed = True
        while changed:  # a function that calls one with target regions has device work too
            changed = False
            for ir in out.values():
                if ir.has_device:
                    continue
                for node in ir.root.walk():
                    calls = [e for e in node.events + node.cond + node.step
                             if isinstance(e, CallEvent)]
                    if any(out[c.callee].has_device for c in calls if c.callee in out):
                        ir.has_device = changed = True
                        break
        return out

    def build(self, function: HostFunction) -> FunctionIR:
        refs = sorted(self.refs_by_function.get(function.name, ()), key=lambda r: r.span.start)
        copies = sorted(self.copies_by_function.get(function.name, ()),
                        key=lambda c: c.span.start)
        self._refs, self._copies, self._function = refs, copies, function.name
        self._owner = _innermost_owner(function.body, [r.span.start for r in refs]
                                       + [c.span.start for c in copies]
                                       + [c.span.start for s in function.body.walk()
                                          for c in s.calls])
        root = self._node(function.body, None)
        has_device = any(n.kind == "kernel" for n in root.walk())
        return FunctionIR(function, root, has_device, self._definitions(function))

    def _definitions(self, function: HostFunction) -> dict[str, str]:
        """``const size_t nel = (size_t)rows * cols;`` -> nel: its initializer, for the
        integer locals never assigned again (so an element count spelled ``nel`` in one
        place and ``rows*cols`` in another is recognized as the same)."""
        body = self.text(function.body)
        out = {}
        for stmt in function.body.walk():
            match = _DECLARATION.match(self.text(stmt)) if stmt.kind == "decl" else None
            if match is None:
                continue
            rest = body.replace(self.text(stmt), "", 1)
            for declarator in _top_level_split(match.group(1)):
                found = _DECLARATOR.match(declarator)
                if found is None:
                    continue
                name = found.group(1)
                if not assigned_in(name, rest) and name not in out:
                    value = found.group(2).strip()
                    out[name] = self._member_value(function, stmt, value) or value
        return out

    def _member_value(self, function: HostFunction, decl: Stmt, member: str) -> str | None:
        """For ``const int n = p.n;`` after ``p.n = np;`` in the same straight-line block:
        ``np``, when nothing between the two can change ``p`` (no ``&p``, ``p`` not passed
        to a call, ``p.n`` not assigned again) and ``np`` is not assigned after it. That is
        how struct-of-arrays codes pull sizes into locals."""
        if not _MEMBER.match(member):
            return None
        siblings = list(function.body.children)
        if decl not in siblings:
            return None
        root = member.split(".")[0]
        escapes = re.compile(rf"&\s*{root}\b|\b{root}\s*[,)]|{re.escape(member)}\s*=[^=]")
        assign = re.compile(rf"^\s*{re.escape(member)}\s*=\s*([^;=][^;]*?)\s*;?\s*$", re.S)
        for index in range(siblings.index(decl) - 1, -1, -1):
            text = self.text(siblings[index])
            found = assign.match(text) if siblings[index].kind == "expr" else None
            if found is None:
                if escapes.search(text):
                    return None
                continue
            value = found.group(1).strip()
            after = self.source[siblings[index].span.end:function.body.span.end].decode(
                "utf-8", "replace")
            names = set(re.findall(r"[A-Za-z_]\w*", value))
            if "(" in value or any(assigned_in(v, after) for v in names):
                return None
            return value
        return None

    # --- statements ---------------------------------------------------------------------

    def _node(self, stmt: Stmt, parent: Node | None) -> Node:
        directive = self._target_of(stmt)
        if directive is not None:
            node = Node("kernel", stmt, self._function, directive=directive, parent=parent)
            node.events = self._kernel_events(stmt, directive)
            return node
        kind = stmt.kind
        if kind == "block":
            node = Node("seq", stmt, self._function, parent=parent)
            node.children = [self._node(c, node) for c in stmt.children]
        elif kind in LOOP_KINDS:
            node = Node("loop", stmt, self._function, parent=parent, loop_kind=kind)
            if stmt.init is not None:
                node.init = self._node(stmt.init, node)
            node.cond = self._own_events(stmt, stmt.cond.span if stmt.cond else None)
            node.step = self._own_events(stmt, stmt.step.span if stmt.step else None)
            node.body = self._node(stmt.body, node) if stmt.body is not None else \
                Node("seq", None, self._function, parent=node)
            node.events = self._host_full_writes(stmt)
        elif kind == "if":
            node = Node("if", stmt, self._function, parent=parent)
            node.cond = self._own_events(stmt, None)
            then = self._node(stmt.body, node) if stmt.body else Node("seq", None, self._function)
            orelse = self._node(stmt.orelse, node) if stmt.orelse else \
                Node("seq", None, self._function, parent=node)
            node.children = [then, orelse]
        elif kind == "switch":
            node = Node("switch", stmt, self._function, parent=parent)
            node.cond = self._own_events(stmt, None)
            node.body = self._node(stmt.body, node) if stmt.body else \
                Node("seq", None, self._function, parent=node)
        elif kind in ("case", "default", "label"):
            node = Node("seq", stmt, self._function, parent=parent)
            node.jump = kind  # a place where other paths join
            node.children = [self._node(c, node) for c in stmt.children]
        elif kind in JUMP_KINDS:
            node = Node("jump", stmt, self._function, parent=parent, jump=kind)
            node.events = self._own_events(stmt, None)
        else:
            node = Node("leaf", stmt, self._function, parent=parent)
            node.events = self._own_events(stmt, None)
        return node

    def _target_of(self, stmt: Stmt) -> int | None:
        """The target region whose body ``stmt`` is: its own directive, or an enclosing one
        on the same statement (``#pragma omp target`` over ``#pragma omp teams ...``)."""
        index = stmt.directive
        directives = self.model.directives
        while index is not None:
            directive = directives[index]
            if directive.is_target_region:
                return index
            parent = directive.parent
            outer = directives[parent].stmt_span if parent is not None else None
            if outer is None or outer.start not in (stmt.span.start, directive.span.start):
                return None
            index = parent
        return None

    def _own_events(self, stmt: Stmt, within) -> list:
        """Events of ``stmt``'s own expressions (not nested statements), in source order;
        ``within`` restricts them to one header part (a loop's condition or step)."""
        events = []
        for ref in self._refs:
            if self._owner.get(ref.span.start) is stmt and _inside(ref.span, within):
                if ref.directive is not None or (ref.call and ref.call in self.bodies):
                    continue  # device accesses belong to kernels; user calls are inlined
                events.append((ref.span.start, Access(ref.array, "H", ref.mode, ref)))
        for copy in self._copies:
            if self._owner.get(copy.span.start) is stmt and _inside(copy.span, within):
                events.append((copy.span.start, Copy(copy.target, copy.source, copy.offset)))
        if within is None or stmt.kind not in LOOP_KINDS:
            for call in stmt.calls:
                if call.name in self.bodies and _inside(call.span, within):
                    events.append((call.span.start, CallEvent(
                        call.name, tuple(a.text for a in call.args), call.span.start)))
        events.sort(key=lambda item: item[0])
        return [e for _, e in events]

    def _kernel_events(self, stmt: Stmt, directive: int) -> list:
        refs = [r for r in self._refs if r.directive == directive]
        full = _full_writes(stmt, refs, self.text, self.source) if stmt.kind == "for" else {}
        events = []
        for ref in refs:
            extent = _write_extent(stmt, ref, self.text) if ref.writes else None
            events.append(Access(ref.array, "D", ref.mode, ref, full.get(ref.array), extent))
        return events

    def _host_full_writes(self, stmt: Stmt) -> list:
        if stmt.kind != "for":
            return []
        inner = [r for r in self._refs if r.directive is None and not r.call
                 and stmt.span.start <= r.span.start < stmt.span.end]
        return [Access(name, "H", "write", None, count)
                for name, count in _full_writes(stmt, inner, self.text, self.source).items()]


def _full_writes(stmt: Stmt, refs: list[ArrayRef], text, source: bytes) -> dict[str, str]:
    """Arrays that a nest of counting loops ``for (i = 0; i < E; i++)`` overwrites
    completely before reading them: every access has one subscript that numbers the nest's
    iterations in mixed radix (``a[i]``, ``out[j * rows + i]`` over ``i < rows, j < cols``),
    and every path through the body writes it first. Returns name -> element count."""
    nest, body = _counting_nest(stmt, text)
    if not nest:
        return {}
    by_name: dict[str, list[ArrayRef]] = {}
    for ref in refs:
        by_name.setdefault(ref.array, []).append(ref)
    out = {}
    for name, group in by_name.items():
        counts = {_radix_count(r.subscripts[0].text, nest) if len(r.subscripts) == 1 else None
                  for r in group}
        if len(counts) != 1 or None in counts:
            continue
        if _writes_first(body, group, text) == _WRITES:
            out[name] = counts.pop()
    return out


def _counting_nest(stmt: Stmt, text) -> tuple[list[tuple[str, str]], Stmt | None]:
    """The perfectly nested counting loops from 0 (``<``) starting at ``stmt`` as
    (counter, bound) pairs, outermost first, and the innermost body."""
    nest, body = [], stmt
    while body is not None:
        loop = counting_loop(body, text)
        if loop is None or loop[1].strip() != "0" or loop[2] != "<":
            break
        nest.append((loop[0], loop[3]))
        body = body.body
        while body is not None and body.kind == "block" and len(body.children) == 1 and \
                body.children[0].kind == "for":
            body = body.children[0]
    return nest, body


def _radix_count(index: str, nest: list[tuple[str, str]]) -> str | None:
    """``E`` when ``index`` takes every value of ``[0, E)`` exactly once over the nest:
    ``c1*v1 + ... + ck*vk`` with the counters ordered so that ``c1 = 1`` and
    ``c(k+1) = ck * bound(vk)``; the bounds may not use the counters."""
    try:
        value = poly(index)
        bounds = {var: poly(bound) for var, bound in nest}
    except NotPoly:
        return None
    counters = set(bounds)
    if any(var in key for bound in bounds.values() for key in bound for var in counters):
        return None
    coefficient: dict[str, Poly] = {}
    for key, factor in value.items():
        used = [atom for atom in key if atom in counters]
        if len(used) != 1 or key.count(used[0]) != 1:
            return None
        rest = list(key)
        rest.remove(used[0])
        coefficient.setdefault(used[0], {})
        coefficient[used[0]] = add(coefficient[used[0]], {tuple(rest): factor})
    if set(coefficient) != counters:
        return None
    radix: Poly = {(): 1}
    remaining = dict(coefficient)
    while remaining:
        step = [var for var, c in remaining.items() if c == radix]
        if len(step) != 1:
            return None
        radix = mul(radix, bounds[step[0]])
        del remaining[step[0]]
    return render(radix)


_WRITES, _READS, _NEITHER = "writes", "reads", "neither"
_SHORT_CIRCUIT = re.compile(r"\?|&&|\|\|")


def _writes_first(stmt: Stmt, refs: list[ArrayRef], text) -> str:
    """Whether every path through ``stmt`` writes the array (all of whose ``refs`` are
    ``a[i]``) before it reads it: ``if (edge) a[i] = 0; else a[i] = f(b);`` overwrites ``a[i]``
    as surely as a plain assignment. ``_READS`` also stands for "cannot tell" (a jump, a
    nested loop that reads, a write under ``?:``/``&&``) and stops the search."""
    inside = [r for r in refs if stmt.span.start <= r.span.start < stmt.span.end]
    if stmt.kind in JUMP_KINDS:
        return _READS  # the rest of the body may not run
    if not inside:
        return _READS if any(s.kind in JUMP_KINDS for s in stmt.walk()) else _NEITHER
    if stmt.kind == "block":
        for child in stmt.children:
            status = _writes_first(child, inside, text)
            if status != _NEITHER:
                return status
        return _NEITHER
    if stmt.kind == "if":
        if stmt.cond is not None and any(_inside(r.span, stmt.cond.span) for r in inside):
            return _READS
        branches = [_writes_first(part, inside, text) if part is not None else _NEITHER
                    for part in (stmt.body, stmt.orelse)]
        if _READS in branches:
            return _READS
        return _WRITES if branches == [_WRITES, _WRITES] else _NEITHER
    if stmt.kind in ("expr", "decl"):
        # ``a[i] = f(a[i])`` reads before it writes although the write comes first.
        if any(r.reads for r in inside):
            return _READS
        # ``c ? (a[i] = x) : y`` writes only sometimes; ``a[i] = c ? x : y`` always.
        head = text(stmt)[:inside[0].span.start - stmt.span.start]
        return _READS if _SHORT_CIRCUIT.search(head) else _WRITES
    return _READS if any(r.reads for r in inside) else _NEITHER


def _write_extent(kernel: Stmt, ref: ArrayRef, text) -> str | None:
    """``[lo:len]`` holding every element a kernel's write ``a[f(i, j)]`` may touch: ``f``
    affine in the counters of the counting loops around it (non-negative coefficients), its
    other variables not assigned in the kernel. Elements outside it keep their host value,
    which is what lets the host read boundary elements an interior-only kernel never
    writes without a copy."""
    if len(ref.subscripts) != 1:
        return None
    try:
        low = high = poly(ref.subscripts[0].text)
    except NotPoly:
        return None
    loops = [s for s in kernel.walk() if s.kind in LOOP_KINDS and
             s.span.start <= ref.span.start < s.span.end]
    counters = set()
    for loop in reversed(loops):  # innermost first: inner bounds may use outer counters
        bounds = loop_range(loop, text)
        if bounds is None:
            return None
        var, first, last = bounds
        counters.add(var)
        low, ok_low = substitute(low, var, first)
        high, ok_high = substitute(high, var, last)
        if not (ok_low and ok_high):
            return None
    body = text(kernel)
    names = {v for key in list(low) + list(high) for atom in key
             for v in re.findall(r"[A-Za-z_]\w*", atom)}
    if names & counters or any(assigned_in(v, body) for v in names):
        return None
    return f"[{render(low)}:{render(add(add(high, scale(low, -1)), {(): 1}))}]"


def _inside(span, within) -> bool:
    return within is None or within.start <= span.start < within.end


def _innermost_owner(body: Stmt, offsets: list[int]) -> dict[int, Stmt]:
    """For each offset, the innermost statement of ``body`` containing it."""
    owner: dict[int, Stmt] = {}
    wanted = sorted(set(offsets))

    def visit(stmt: Stmt):
        lo = bisect.bisect_left(wanted, stmt.span.start)
        hi = bisect.bisect_left(wanted, stmt.span.end)
        for offset in wanted[lo:hi]:
            owner[offset] = stmt  # children are visited later and overwrite: innermost wins
        for part in (stmt.init, stmt.body, stmt.orelse, *stmt.children):
            if part is not None:
                visit(part)

    visit(body)
    return owner
