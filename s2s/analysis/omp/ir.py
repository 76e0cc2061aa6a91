"""A structured control-flow IR of host functions for OpenMP data-mapping analysis.

Each host function's statement tree (``s2s.model.host.Stmt``) becomes a tree of nodes whose
leaves carry *events* in execution order: an array access on the host or on the device (a
whole target region is one ``kernel`` node), a pointer copy, or a call to a function of the
same file (analyzed by inlining). Loops, branches, switches and jumps keep their structure, so
the dataflow in :mod:`s2s.analysis.omp.flow` is an abstract interpretation over the
structured control-flow graph, and placement can reason about "this loop" or "this branch".

Full writes are recognized where they matter for the amount of data moved: a ``for`` loop
``for (i = 0; i < E; i++)`` (host loop or target region) whose only accesses to an array are
``a[i]`` and whose first one is an unconditional plain write overwrites ``a[0:E]``; no copy of
the old contents is then needed.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from s2s.analysis.omp.index_locals import index_locals
from s2s.analysis.omp.loops import (
    JUMP_KINDS,
    LOOP_KINDS,
    full_writes,
    inside_span,
    write_extent,
)
from s2s.analysis.omp.settled import steady_member, steady_value
from s2s.analysis.polynomial import assigned_names
from s2s.model import ArrayRef, HostFunction, PointerCopy, Stmt, TranslationUnit
from s2s.model.access import AccessMode
from s2s.model.host_facts import VALUE_ROLES


@dataclass(frozen=True)
class Access(AccessMode):
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


@dataclass(frozen=True)
class Copy:
    """Pointer copy ``target = source`` (source None: fresh or unknown storage)."""

    target: str
    source: str | None
    offset: bool = False
    choices: tuple[str, ...] = ()  # ``c ? p : q``: the names it may copy (source None)


@dataclass(frozen=True)
class CallEvent:
    """A call to ``callee`` (a function with a body in this file) and its arguments as
    written; the interpreter binds parameters to them."""

    callee: str
    args: tuple[str, ...]
    offset: int
    #: ``callee`` is ``*`` and a parameter of the calling function (``kernel(args...)`` in a
    #: generic ``bench(int repeat, F kernel, Args... args)``): the function the call reaches
    #: is the argument bound to it, known only per calling context (omp.calls)
    indirect: bool = False
    #: (argument index, names) of pointer arguments ``c ? p : q``: either storage
    choices: tuple[tuple[int, tuple[str, ...]], ...] = ()
    #: the other functions a call through a function pointer may reach
    #: (``CallSite.targets``): the call reaches ``callee`` or one of these; the interpreter
    #: runs each from the same state and meets the results, as for a branch's arms
    alternatives: tuple[str, ...] = ()

    @property
    def targets(self) -> tuple[str, ...]:
        """Every function the call may reach (``callee`` and its alternatives)."""
        return (self.callee, *self.alternatives)

    def each_target(self) -> list[CallEvent]:
        """The call as one call per function it may reach."""
        return [replace(self, callee=name, alternatives=()) for name in self.targets]


@dataclass(frozen=True)
class Assign:
    """The statement (or header part) may change the integer variables ``names`` (root
    names, over-approximated): facts whose sections mention them no longer hold after it."""

    names: frozenset


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
    #: planned updates executed at the end of a loop's body (written after its last statement)
    after_body: list = field(default_factory=list)
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
    #: positions of the parameters it calls (a generic wrapper's callable)
    called_params: frozenset = frozenset()
    #: the variables it declares with a built-in type or a pointer to one (its declarators'
    #: ``VarUse``, any scope): locals that hold no caller's storage unless a copy says so;
    #: None when the function's mentions were not extracted
    scalar_locals: frozenset | None = None




def called_functions(irs: dict[str, FunctionIR], nodes) -> set[str]:
    """Functions of the file that the statements ``nodes`` call, directly or not (also
    those handed to a generic wrapper that calls them)."""
    found, todo = set(), list(nodes)
    while todo:
        for node in todo.pop().walk():
            for event in node.events + node.cond + node.step:
                if not isinstance(event, CallEvent):
                    continue
                for callee in (*event.targets, *handed_functions(irs, event)):
                    if callee in irs and callee not in found:
                        found.add(callee)
                        todo.append(irs[callee].root)
    return found


def handed_functions(irs: dict[str, FunctionIR], event: CallEvent) -> list[str]:
    """The functions of the file that ``event`` hands to a callee that calls them (``scal``
    in ``bench(20, scal, y, x, n)``)."""
    callee = irs.get(event.callee)
    if callee is None or not callee.called_params:
        return []
    return [name for k in sorted(callee.called_params) if k < len(event.args)
            for name in (function_argument(event.args[k]),) if name in irs]


def function_argument(text: str) -> str:
    """``scal`` for the argument ``scal`` or ``&scal``."""
    return text.strip().lstrip("&").strip()


def _holds(outer, span) -> bool:
    return outer.file == span.file and outer.start <= span.start < outer.end


def _assign(names: frozenset) -> list:
    return [Assign(frozenset(names))] if names else []


_MEMBER = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
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

    def _element_types(self, ref) -> set[str]:
        """The element types ``ref``'s array is declared or allocated with in its function
        (a pointer parameter's pointee, an allocation's element type)."""
        function = self.bodies.get(ref.function)
        types = {a.element_type for a in self.model.allocations
                 if a.name == ref.array and a.function == ref.function}
        for param in function.params if function is not None else ():
            if param.name == ref.array and param.type.rstrip().endswith("*"):
                types.add(param.type.rstrip()[:-1])
        return {re.sub(r"\b(?:const|volatile|restrict|__restrict__)\b|\s+", "", t)
                for t in types}

    def text(self, stmt_or_expr) -> str:
        span = stmt_or_expr.span
        return self.source[span.start:span.end].decode("utf-8", "replace")

    def build_all(self) -> dict[str, FunctionIR]:
        out = {}
        for name, function in self.bodies.items():
            out[name] = self.build(function)
        calls = {name: [one for node in ir.root.walk() for e in node.events + node.cond + node.step
                        if isinstance(e, CallEvent) for one in e.each_target() if one.callee in out]
                 for name, ir in out.items()}
        changed = True
        while changed:  # a function that calls one with target regions has device work too
            changed = False
            for name, ir in out.items():
                for call in calls[name]:
                    # (a wrapper has device work when a caller hands it a function with some)
                    callee = out[call.callee]
                    if not callee.has_device and callee.called_params and any(
                            out[f].has_device for f in handed_functions(out, call)):
                        callee.has_device = changed = True
                    if callee.has_device and not ir.has_device:
                        ir.has_device = changed = True
        return out

    def build(self, function: HostFunction) -> FunctionIR:
        refs = sorted(self.refs_by_function.get(function.name, ()), key=lambda r: r.span.start)
        copies = sorted(self.copies_by_function.get(function.name, ()),
                        key=lambda c: c.span.start)
        self._refs, self._copies, self._function = refs, copies, function.name
        self._params = {p.name: k for k, p in enumerate(function.params)
                        if p.name and not p.is_pointer}
        self._pointer_params = frozenset(p.name for p in function.params if p.is_pointer)
        # calls through a local function pointer that holds only functions of the file
        # (frontend.host.callees): the pointer's name -> those functions
        self._dispatch = {c.name: c.targets for s in function.body.walk() for c in s.calls
                          if c.targets and all(t in self.bodies for t in c.targets)}
        self._owner = _innermost_owner(function.body, [r.span.start for r in refs]
                                       + [c.span.start for c in copies]
                                       + [c.span.start for s in function.body.walk()
                                          for c in s.calls])
        # per owning statement and per directive: a scan of the function's references for
        # every statement was quadratic in big functions (main calling a thousand others)
        self._refs_of: dict[int, list] = {}
        self._copies_of: dict[int, list] = {}
        self._refs_in: dict[int | None, list] = {}
        for ref in refs:
            self._refs_of.setdefault(id(self._owner.get(ref.span.start)), []).append(ref)
            self._refs_in.setdefault(ref.directive, []).append(ref)
        for copy in copies:
            self._copies_of.setdefault(id(self._owner.get(copy.span.start)), []).append(copy)
        root = self._node(function.body, None)
        has_device = any(n.kind == "kernel" for n in root.walk())
        called = frozenset(self._params[e.callee[1:]] for n in root.walk() for e in n.events
                           if isinstance(e, CallEvent) and e.indirect)
        uses = self.model.in_function("var_uses", function.name)
        scalar_locals = frozenset(u.name for u in uses if not u.record and u.role in (
            "declare", "null-init", "init")) if uses else None
        return FunctionIR(function, root, has_device, self._definitions(function), called,
                          scalar_locals)

    def _definitions(self, function: HostFunction) -> dict[str, str]:
        """``const size_t nel = (size_t)rows * cols;`` -> nel: its initializer, for the
        integer locals never assigned again (so an element count spelled ``nel`` in one
        place and ``rows*cols`` in another is recognized as the same). From the AST's
        mentions (``VarUse``): a declarator of integer type with an initializer whose name
        nothing else in the function declares, assigns, steps or takes the address of (a
        name declared twice, in any scopes, is neither's), and whose value's variables keep
        their values after it (omp.settled.steady_value: parameters or locals never written
        after it nor through their address; ``int n = w * h;`` then ``w *= 2;`` is not)."""
        uses = self.model.in_function("var_uses", function.name)
        writes = Counter(u.name for u in uses if u.role in VALUE_ROLES or u.role == "declare")
        out = {}
        for use in uses:
            if use.role != "init" or not use.integer or use.pointer or \
                    writes[use.name] != 1 or use.value is None:
                continue
            value = use.value.text.strip()
            if not _MEMBER.match(value) and \
                    not steady_value(self.model, function, use.value.span):
                continue  # ``int n = w * h;`` then ``w = 2 * w;``: n is no longer w * h
            decl = self._declaration_of(function, use.span) if _MEMBER.match(value) else None
            member = decl is not None and self._member_value(function, decl, value)
            if _MEMBER.match(value) and not member and \
                    not steady_member(self.model, function, use.value.span, value.split(".")):
                continue  # ``int n = p.len;`` then ``p.len *= 2;``: n is no longer p.len
            out[use.name] = member or value
        return out

    @staticmethod
    def _declaration_of(function: HostFunction, span) -> Stmt | None:
        """The declaration among the function's top-level statements that holds ``span``."""
        for stmt in function.body.children:
            if stmt.kind == "decl" and stmt.span.start <= span.start < stmt.span.end:
                return stmt
        return None

    def _member_value(self, function: HostFunction, decl: Stmt, member: str) -> str | None:
        """For ``const int n = p.n;`` after ``p.n = np;`` in the same straight-line block:
        ``np``, when nothing between the two can change ``p`` (no ``&p``, ``p`` not passed
        to a call or assigned whole, ``p.n`` not written again) and ``np`` is not assigned
        after it. That is how struct-of-arrays codes pull sizes into locals. From the AST
        (``VarUse`` of ``p``, ``MemberWrite`` of ``p.n``)."""
        path = member.split(".")
        siblings = list(function.body.children)
        if len(path) != 2 or decl not in siblings:
            return None
        root, field_name = path
        uses = self.model.in_function("var_uses", function.name)
        writes = [w for w in self.model.in_function("member_writes", function.name) if
                  w.base == root and w.member == field_name]
        for index in range(siblings.index(decl) - 1, -1, -1):
            sibling = siblings[index].span
            mine = [w for w in writes if _holds(sibling, w.span)]
            if siblings[index].kind == "expr" and len(mine) == 1 and \
                    mine[0].value is not None and \
                    (mine[0].extent.start, mine[0].extent.end) == (sibling.start, sibling.end):
                value = mine[0].value.text.strip()
                names = set(re.findall(r"[A-Za-z_]\w*", value))
                if "(" in value or any(
                        u.name in names and u.span.start >= sibling.end and
                        (u.role in VALUE_ROLES or u.role == "declare") for u in uses):
                    return None
                return value
            if mine or any(u.name == root and _holds(sibling, u.span) and
                           u.role in ("address", "argument", "assign") for u in uses):
                return None
        return None

    # --- statements ---------------------------------------------------------------------

    def _node(self, stmt: Stmt, parent: Node | None) -> Node:
        directive = self._target_of(stmt)
        if directive is not None:
            node = Node("kernel", stmt, self._function, directive=directive, parent=parent)
            node.events = self._kernel_events(stmt, directive) + \
                _assign(self._written_back(stmt, directive))
            return node
        kind = stmt.kind
        if kind == "block":
            node = Node("seq", stmt, self._function, parent=parent)
            node.children = [self._node(c, node) for c in stmt.children]
        elif kind in LOOP_KINDS:
            node = Node("loop", stmt, self._function, parent=parent, loop_kind=kind)
            if stmt.init is not None:
                node.init = self._node(stmt.init, node)
            node.cond = self._own_events(stmt, stmt.cond.span if stmt.cond else None) + \
                self._assigns(stmt.cond)
            node.step = self._own_events(stmt, stmt.step.span if stmt.step else None) + \
                self._assigns(stmt.step)
            node.body = self._node(stmt.body, node) if stmt.body is not None else \
                Node("seq", None, self._function, parent=node)
            node.events = self._hostfull_writes(stmt)
        elif kind == "if":
            node = Node("if", stmt, self._function, parent=parent)
            node.cond = self._own_events(stmt, None) + self._assigns(stmt.cond)
            then = self._node(stmt.body, node) if stmt.body else Node("seq", None, self._function)
            orelse = self._node(stmt.orelse, node) if stmt.orelse else \
                Node("seq", None, self._function, parent=node)
            node.children = [then, orelse]
        elif kind == "switch":
            node = Node("switch", stmt, self._function, parent=parent)
            node.cond = self._own_events(stmt, None) + self._assigns(stmt.cond)
            node.body = self._node(stmt.body, node) if stmt.body else \
                Node("seq", None, self._function, parent=node)
        elif kind in ("case", "default", "label"):
            node = Node("seq", stmt, self._function, parent=parent)
            node.jump = kind  # a place where other paths join
            node.children = [self._node(c, node) for c in stmt.children]
        elif kind in JUMP_KINDS:
            node = Node("jump", stmt, self._function, parent=parent, jump=kind)
            node.events = self._own_events(stmt, None) + self._assigns(stmt)
        else:
            node = Node("leaf", stmt, self._function, parent=parent)
            node.events = self._own_events(stmt, None) + self._assigns(stmt)
        return node

    def _assigns(self, part) -> list:
        """An :class:`Assign` event (last: the statement's accesses come first) for the
        variables ``part`` may change, or nothing."""
        return _assign(assigned_names(self.text(part))) if part is not None else []

    def _written_back(self, stmt: Stmt, directive: int) -> frozenset:
        """Host variables a target region assigns when it ends: reduction and lastprivate
        items and scalars mapped ``from``/``tofrom``, on any directive of the region."""
        names = set()
        start = self.model.directives[directive].span.start
        for other in self._directives_within(start, stmt.span.end):
            for clause in other.clauses:
                if clause.name in ("reduction", "lastprivate"):
                    names.update(item.root for item in clause.items)
            for clause in other.maps:
                if clause.map_type in ("from", "tofrom"):
                    names.update(i.root for i in clause.items if not i.sections)
        return frozenset(names)

    def _directives_within(self, start: int, end: int) -> list:
        """The directives whose pragma starts in ``[start, end)`` (by bisection: the model's
        directives are in source order)."""
        starts = self.model.cached("directive starts",
                                   lambda: [d.span.start for d in self.model.directives])
        if self.model.cached("directive starts sorted", lambda: starts == sorted(starts)) \
                is False:
            return [d for d in self.model.directives if start <= d.span.start < end]
        low, high = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
        return list(self.model.directives[low:high])

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
        for ref in self._refs_of.get(id(stmt), ()):
            if inside_span(ref.span, within):
                if ref.directive is not None or (ref.call and (ref.call in self.bodies or
                                                               ref.call in self._dispatch)):
                    continue  # device accesses belong to kernels; user calls are inlined
                events.append((_event_position(stmt, ref), Access(
                    ref.array, "H", ref.mode, ref,
                    _block_copy_count(stmt, ref, self._element_types(ref)))))
        for copy in self._copies_of.get(id(stmt), ()):
            if inside_span(copy.span, within):
                events.append((copy.span.start, Copy(copy.target, copy.source, copy.offset,
                                                     copy.choices)))
        if within is None or stmt.kind not in LOOP_KINDS:
            for call in stmt.calls:
                if not inside_span(call.span, within):
                    continue
                if call.name in self.bodies:
                    events.append((call.span.start, CallEvent(
                        call.name, self._call_args(stmt, call), call.span.start,
                        choices=self._call_choices(stmt, call))))
                elif call.name in self._dispatch:
                    first, *others = self._dispatch[call.name]
                    events.append((call.span.start, CallEvent(
                        first, self._call_args(stmt, call), call.span.start,
                        choices=self._call_choices(stmt, call), alternatives=tuple(others))))
                elif call.name in self._params:
                    events.append((call.span.start, CallEvent(
                        "*" + call.name, self._call_args(stmt, call), call.span.start, True)))
        events.sort(key=lambda item: item[0])
        return [e for _, e in events]

    def _call_args(self, stmt: Stmt, call) -> tuple[str, ...]:
        """The call's arguments as written, except a pointer computed by a call (``v.data()``
        of a ``std::vector``) or spelled through a macro (``#define HD_U h_U``, AMD's
        8_jacobi), which is given as the storage the front end resolved it to (``v``,
        ``h_U``): the binding of parameters (omp.calls) reads names, not calls or macros."""
        args = [a.text for a in call.args]
        for ref in self._refs_of.get(id(stmt), ()):
            if ref.call == call.name and ref.arg_index is not None and \
                    ref.arg_index < len(args) and ("(" in args[ref.arg_index] or
                                                   call.args[ref.arg_index].span.macro) and \
                    call.span.start <= ref.span.start < call.span.end:
                subs = ref.subscripts
                args[ref.arg_index] = ref.array if not subs else \
                    f"{ref.array} + ({subs[0].text})"
        return tuple(args)

    def _call_choices(self, stmt: Stmt, call) -> tuple:
        """(index, names) of each argument that passes one of several arrays whole: the
        front end's accesses of the branches of ``c ? p : q`` (two or more, conditional) lie
        strictly inside it (one inside ``(double *)p`` is no choice)."""
        out = {}
        for ref in self._refs_of.get(id(stmt), ()):
            k = ref.arg_index
            if ref.call == call.name and k is not None and k < len(call.args) and \
                    ref.conditional and call.args[k].span.contains(ref.span) and \
                    call.args[k].span != ref.span:
                out.setdefault(k, []).append(None if ref.subscripts else ref.array)
        return tuple((k, tuple(dict.fromkeys(names))) for k, names in sorted(out.items())
                     if None not in names and len(names) > 1)

    def _kernel_events(self, stmt: Stmt, directive: int) -> list:
        refs = list(self._refs_in.get(directive, ()))
        full = full_writes(stmt, refs, self.text, self._index_locals(stmt)) \
            if stmt.kind == "for" else {}
        events = []
        for ref in refs:
            extent = write_extent(stmt, ref, self.text, self.model) if ref.writes else None
            events.append(Access(ref.array, "D", ref.mode, ref, full.get(ref.array), extent))
        events += self._through_kernel_pointers(stmt, refs)
        return events

    def _through_kernel_pointers(self, stmt: Stmt, refs: list) -> list:
        """Accesses through a pointer the kernel declares from an array of the function
        (``const float *row = src + y * w;`` then ``row[x]``): accesses to that array, at
        elements not bounded here (no subscript), so that it is mapped whole."""
        inside = {c.target: c.source for c in self._copies
                  if stmt.span.start <= c.span.start < stmt.span.end}
        if not inside:
            return []
        outer = {r.root for r in self._refs if not r.region_local} | self._pointer_params | \
            {c.target for c in self._copies
             if not stmt.span.start <= c.span.start < stmt.span.end}
        events = []
        for ref in refs:
            if not ref.region_local or ref.root not in inside:
                continue
            source, seen = inside[ref.root], {ref.root}
            while source in inside and source not in seen and source not in outer:
                seen.add(source)
                source = inside[source]
            if source is not None and source in outer:
                events.append(Access(source, "D", ref.mode, None))
        return events

    def _hostfull_writes(self, stmt: Stmt) -> list:
        if stmt.kind != "for":
            return []
        inner = [r for r in self._refs if r.directive is None and not r.call
                 and stmt.span.start <= r.span.start < stmt.span.end]
        return [Access(name, "H", "write", None, count)
                for name, count in full_writes(stmt, inner, self.text,
                                               self._index_locals(stmt)).items()]

    def _index_locals(self, stmt: Stmt) -> dict[str, str]:
        """The index locals of a loop nest (omp.index_locals), from the function's
        mentions."""
        return index_locals(stmt, self.model.in_function("var_uses", self._function))


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


def _event_position(stmt: Stmt, ref) -> int:
    """Where a host access happens, for ordering a statement's events: its place in the
    text, but a library call's output argument at the call's end (``memcpy(result, t, n)``
    reads ``t`` before it writes ``result``: in a swap loop where ``t`` may point to
    ``result``, the write first would make ``t`` look stale on both sides)."""
    if ref.call and ref.mode == "write":
        for call in stmt.calls:
            if call.name == ref.call and call.span.start <= ref.span.start < call.span.end:
                return call.span.end - 1
    return ref.span.start


#: library calls that overwrite ``count`` bytes of their first argument from its start
_BLOCK_WRITES = ("memcpy", "memmove", "memset")
_BYTES = re.compile(r"^\s*(?:\(\s*size_t\s*\)\s*)?(?P<a>.+?)\s*\*\s*sizeof\s*\(\s*(?P<t>[^()]+)\)\s*$|"
                    r"^\s*sizeof\s*\(\s*(?P<u>[^()]+)\)\s*\*\s*(?P<b>.+?)\s*$")


def _block_copy_count(stmt: Stmt, ref, element_types: set[str]) -> str | None:
    """The element count a ``memcpy(p, q, n * sizeof(double))`` (or memmove, memset)
    overwrites from the start of its destination ``p``: a full write of ``p`` when it is
    the array's length (omp.flow compares), which spares copying ``p`` to the host first.
    Only where ``sizeof`` measures ``p``'s element (``*p``, ``p[0]``, or the type ``p`` is
    declared or allocated with, ``element_types``): ``n * sizeof(float)`` into doubles
    writes half of what ``n`` elements are."""
    if ref.call not in _BLOCK_WRITES or ref.arg_index != 0 or ref.mode != "write" or \
            ref.subscripts:
        return None
    for call in stmt.calls:
        if call.name == ref.call and call.span.start <= ref.span.start < call.span.end and \
                len(call.args) == 3:
            found = _BYTES.match(call.args[2].text)
            if found is None:
                return None
            measured = re.sub(r"\b(?:const|volatile)\b|\s+", "", found.group("t") or
                              found.group("u"))
            if measured in (f"*{ref.array}", f"{ref.array}[0]") or measured in element_types:
                return (found.group("a") or found.group("b")).strip()
            return None
    return None
