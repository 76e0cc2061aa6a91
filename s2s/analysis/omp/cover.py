"""Which elements of an array the device reads before writing them: the only ones an entry
copy has to bring.

The planner gives ``map(to:)`` to every array some device access reads before the host
changes it. Often the device overwrites most of the array first: a smoothing kernel writes
the interior ``b[1:n-2]`` before the kernel that reads all of ``b`` runs, a force kernel in a
called function writes ``fx[0:n]`` before any kick reads it. Elements the device writes
before it reads them need no copy in; with ``map(alloc:)`` they hold indeterminate values
until then, which is harmless exactly when nothing observes them before they are written.

This module runs the dataflow of :mod:`s2s.analysis.omp.flow` once more over the planned
region (its ``target update`` placements in place) and tracks, per storage label copied in at
entry, the *cover*: the sections the device has surely written since the region's entry
(``State.cover``). It is a must-fact, so:

- only writes every iteration of a worksharing loop makes on every path count
  (:func:`s2s.analysis.omp.loops.must_write_extent`, or a full overwrite), through a pointer
  that certainly holds that storage, in a kernel without an ``if`` clause (which could run it
  on the host);
- branches meet by intersection (``meet_cover``); a loop's body counts after the loop only
  when the loop surely runs once (:func:`surely_entered`: constant trip count, or an early
  exit such as ``if (sweeps < 1) return 1;`` before it);
- a kernel's reads are checked against the cover from before the kernel (its iterations may
  read what others write, in any order);
- sections are kept in the root function's names: a callee's ``[0:n]`` is translated through
  its parameter bindings, and every variable must be assigned nowhere in the region or the
  functions it calls, so a section means the same elements wherever it is compared and at
  the region's entry, where the copies go. Anything else is "not covered".

A device read of a section outside the cover is *exposed*: those elements (the read minus the
cover, by interval arithmetic; the whole array when the read cannot be bounded) are the only
ones copied at entry. The device copy is then right wherever it is read. The host must never
receive the indeterminate elements either: every device-to-host copy of such an array (the
planned ``target update from`` items, the exit copies) must stay within the cover at that
point plus the copied elements, or the array keeps its plain ``map(to:)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from s2s.analysis.omp.changes import changing_term
from s2s.analysis.omp.facts import ends_program, never_returning, unchanged_after
from s2s.analysis.omp.flow import Interpreter
from s2s.analysis.omp.guards import region_scope
from s2s.analysis.omp.ir import Access, CallEvent, Copy, Node, Update
from s2s.analysis.omp.loops import counting_loop, must_write_extent, write_extent
from s2s.analysis.omp.nest_cover import (
    assigned_names,
    bind_pattern,
    is_nest_key,
    nest_key,
    nest_pattern,
)
from s2s.analysis.omp.place import source_texts
from s2s.analysis.omp.read_only_args import read_only_addresses
from s2s.analysis.omp.settled import settled_definitions
from s2s.analysis.omp.state import Frame, State, Unsupported, norm_text
from s2s.analysis.polynomial import (
    NotPoly,
    add,
    expand,
    poly,
    render,
    scale,
    subtract_all,
    within,
)

MAX_SECTIONS = 4  # per label, in the cover and in the entry copies
_IDENT = re.compile(r"(?<![\w.>])[A-Za-z_]\w*\b(?!\s*(?:\.|->|\())")
_ANY_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass
class CoverInterpreter(Interpreter):
    """The dataflow with device write coverage for the ``candidates`` (labels copied in)."""

    candidates: frozenset = frozenset()
    model: object = None
    source: bytes = b""
    text: object = None
    #: (id(anchor statement), name as written) -> sections of its ``target update from``
    read_backs: dict = field(default_factory=dict)
    exposed: dict = field(default_factory=dict)  # label -> sections read before covered
    #: the same, and ``whole``, with the nest patterns ignored (omp.nest_cover)
    exposed_plain: dict = field(default_factory=dict)
    whole_plain: set = field(default_factory=set)
    whole: set = field(default_factory=set)  # labels read where no section is known
    unsafe: set = field(default_factory=set)  # labels whose copy to the host is unchecked
    copied_back: list = field(default_factory=list)  # (label, section, cover at that point)
    _bindings: list = field(default_factory=list)  # (scalar params -> argument, function)
    _callees: list = field(default_factory=list)  # (callee's IR, call) beside _bindings
    scope: object = None  # the region (omp.changes.Scope): a nest's terms must not change there
    _pending: list = field(default_factory=list)  # (label, section) written by this kernel
    _offset: set = field(default_factory=set)  # names assigned ``p + k`` somewhere
    _entered: dict = field(default_factory=dict)
    _changing: dict = field(default_factory=dict)  # variable -> assigned or address-taken
    settled: dict = field(default_factory=dict)  # the root function's (omp.settled)
    #: (fact, id(statement node), id(access), ids of the active calls) -> the fact
    #: (:meth:`_in_context`); the IRs, and so these ids, live as long as this run
    _facts: dict = field(default_factory=dict)
    _assigned_in: dict = field(default_factory=dict)  # (function, span or None) -> names

    # --- hooks into the dataflow --------------------------------------------------------------

    def _run(self, node: Node, state: State, frame: Frame) -> State | None:
        if node.kind != "kernel":
            return super()._run(node, state, frame)
        self._pending = []
        out = super()._run(node, state, frame)
        if out is None or not self._pending:
            return out
        out = out.copy()  # a kernel's writes count after all its reads
        for label, section in self._pending:
            known = out.cover.get(label, frozenset())
            if is_nest_key(label):
                if len(known) < MAX_SECTIONS:
                    out.cover[label] = known | {section}
            else:
                out.cover[label] = _add_section(known, section)
        return out

    def _access(self, access: Access, state: State, frame: Frame, node: Node) -> State:
        if access.side == "D" and node.kind == "kernel":
            self._device_access(access, state, frame, node)
        return super()._access(access, state, frame, node)

    def event(self, event, state: State, frame: Frame, node: Node) -> State | None:
        if isinstance(event, Update) and event.side == "H" and self.record:
            self._copy_to_host(event, state, frame, node)
        return super().event(event, state, frame, node)

    def _copy(self, copy: Copy, state: State, frame: Frame) -> State:
        if copy.offset:
            self._offset.add(frame.resolve(copy.target))
        return super()._copy(copy, state, frame)

    def _call(self, call: CallEvent, state: State, frame: Frame) -> State | None:
        ir = self.irs.get(call.callee)
        if ir is None:
            return super()._call(call, state, frame)
        scalars = {p.name: (None if p.is_pointer else a.strip())
                   for p, a in zip(ir.function.params, call.args, strict=False)}
        self._bindings.append((scalars, ir.function.name))
        self._callees.append((ir, call))
        try:
            return super()._call(call, state, frame)
        finally:
            self._bindings.pop()
            self._callees.pop()

    def _first_trip(self, node: Node, state: State, frame: Frame) -> State:
        """A loop that surely runs once starts its fixpoint after its first trip, run alone
        from the entry: what that trip writes through pointers it holds for certain only
        then (``r = result`` before a swap of double buffers) stays covered for the trips
        after it, which would otherwise meet the entry's empty cover at the head."""
        if not self._surely_once(node):
            return state
        back, _ = self._iteration(node, state.copy(), frame)
        return state if back is None else back

    def _surely_once(self, node: Node) -> bool:
        """A counting ``for`` loop without ``break`` that surely runs at least once."""
        if node.loop_kind != "for" or any(n.jump == "break" for n in node.body.walk()):
            return False
        key = (id(node), self._calling_context(node))
        if key not in self._entered:
            function = self.irs[node.function].function
            self._entered[key] = surely_entered(node, function, self.model, self.text) or \
                self._entered_by_caller(node, function)
        return self._entered[key]

    def _calling_context(self, node: Node):
        """The call ``node``'s function was entered by, when it is the innermost one."""
        if not self._calls or not self._callees or \
                self._callees[-1][0].function.name != node.function:
            return None
        return id(self._calls[-1][0])

    def _entered_by_caller(self, node: Node, function) -> bool:
        """A loop whose trip count is its function's parameters (``i < num_iterations``,
        never assigned there) runs once when a guard before the call in the caller leaves
        the arguments that many: ``if (... || sim_time <= 0) fatal(...)`` then
        ``compute_tran_temp(result, sim_time, ...)``."""
        if self._calling_context(node) is None:
            return False
        found = loop_need(node)
        call_node, _caller_frame = self._calls[-1]
        _ir, call = self._callees[-1]
        params = [p.name for p in function.params]
        if found is None or len(call.args) != len(params):
            return False
        need, strict = found
        atoms = {atom for key in need for atom in key}
        if not atoms or not atoms <= set(params) or \
                not unchanged_after(self.model, function, sorted(atoms), function.body.span.start,
                                    function.body.span.start):
            return False
        args = dict(zip(params, call.args, strict=True))
        try:
            need = poly(_IDENT.sub(lambda m: f"({norm_text(args[m.group(0)])})"
                                   if m.group(0) in atoms else m.group(0), render(need)))
        except NotPoly:
            return False
        outer = self.irs[call_node.function].function
        return guarded_positive(need, strict, call_node, outer, self.model)

    def _loop_exit(self, node: Node, back: State | None, exit_state: State | None,
                   frame: Frame) -> State | None:
        """After a loop that surely runs once and has no ``break``, the device wrote what
        the end of an iteration says (``back`` is that state from the fixpoint head, so
        its cover holds in every iteration, the first one included)."""
        if exit_state is None or back is None or not back.cover or not self._surely_once(node):
            return exit_state
        out = exit_state.copy()
        out.cover = dict(back.cover)
        return out

    # --- coverage -------------------------------------------------------------------------

    def _device_access(self, access: Access, state: State, frame: Frame, node: Node) -> None:
        name = frame.resolve(access.name)
        labels = state.get_pts(name) & self.candidates
        if not labels:
            return
        bounded = access.ref is not None and name not in self._offset and \
            _root(access.name) not in frame.offset_bound
        if access.reads and self.record:
            read = self._in_context("read", access, node) if bounded else None
            # a read of the elements an earlier kernel's nest surely wrote, or that each
            # iteration of this one writes first, is covered (omp.nest_cover); the read's
            # own pattern is looked for only where an earlier nest left one
            own = bounded and self._in_context("own nest", access, node) is not None
            for label in labels:
                patterns = state.cover.get(nest_key(label), ())
                nested = own or bounded and bool(patterns) and \
                    self._in_context("nest", access, node) in patterns
                self._expose(label, read or self._whole(label), state, nested)
        if access.writes and bounded and len(state.get_pts(name)) == 1 and \
                self._runs_on_device(node):
            section = self._in_context("written", access, node)
            if section is not None:
                self._pending.append((next(iter(labels)), section))
            pattern = self._in_context("own nest", access, node)
            if pattern is not None:
                self._pending.append((nest_key(next(iter(labels))), pattern))

    def _in_context(self, fact: str, access: Access, node: Node) -> str | None:
        """One of the facts of a device access the coverage reads (``read``: the section it
        reads, ``written``: the section it surely writes, ``nest``/``own nest``: its nest
        pattern, omp.nest_cover), in the root function's names. Each depends only on the
        statement, the access and the active calls (their bindings), never on the state, so
        it is worked out once per call context: a kernel in a loop, or in a function a loop
        calls, is met once per trip of every fixpoint round."""
        key = (fact, id(node), id(access), tuple(id(call) for _, call in self._callees))
        if key not in self._facts:
            if fact == "read":
                extent = write_extent(node.stmt, access.ref, self.text, self.model)
                found = self._root_section(extent) if extent else None
            elif fact == "written":
                found = self._must_written(access, node)
            else:
                found = self._nest(access, node, must=fact == "own nest")
            self._facts[key] = found
        return self._facts[key]

    def _assigned(self, function: str, within=None) -> frozenset[str]:
        """omp.nest_cover.assigned_names, once per function and statement of this run (a
        scan of the function's mentions each time a kernel's access was bound or matched)."""
        key = (function, within)
        if key not in self._assigned_in:
            self._assigned_in[key] = assigned_names(self.model, function, within)
        return self._assigned_in[key]

    def _expose(self, label: str, read: str | None, state: State, nested: bool) -> None:
        """Record the read's elements outside the cover; a read the nest patterns cover
        (``nested``) only in the record that ignores them (``*_plain``), which
        :meth:`EntryCoverage.entry_copy` falls back on."""
        records = [(self.whole_plain, self.exposed_plain)]
        if not nested:
            records.append((self.whole, self.exposed))
        for whole, exposed in records:
            if read is None:
                whole.add(label)
                continue
            pieces = self.subtract(read, state.cover.get(label, ()), self._size(label))
            known = exposed.setdefault(label, [])
            for piece in pieces:
                if not any(_same(piece, k) for k in known):
                    known.append(piece)

    def subtract(self, section: str, parts, size: str | None) -> list[str]:
        """``section`` minus ``parts`` (polynomial.subtract_all); where pieces remain, once
        more with the root function's settled definitions read for their names
        (omp.settled: ``npix`` is ``width * height`` wherever it is in scope), and nothing
        remains when nothing remains so. The pieces kept are the ones as written."""
        pieces = subtract_all(section, parts, size)
        if not pieces or not self.settled:
            return pieces
        grown = subtract_all(expand(section, self.settled),
                             [expand(p, self.settled) for p in parts],
                             None if size is None else expand(size, self.settled))
        return [] if not grown else pieces

    def _must_written(self, access: Access, node: Node) -> str | None:
        refs = [e.ref for e in node.events if isinstance(e, Access) and e.ref is not None]
        local = must_write_extent(node.stmt, access.ref, refs, self.text, self.model)
        if local is None and access.full is not None:
            local = f"[0:{access.full}]"
        return self._root_section(local) if local else None

    def _nest(self, access: Access, node: Node, must: bool) -> str | None:
        """The nest pattern of ``access`` (omp.nest_cover) in the root function's names,
        or None."""
        refs = [e.ref for e in node.events if isinstance(e, Access) and e.ref is not None]
        found = nest_pattern(node.stmt, access.ref, refs, self.text, must,
                             self._assigned(node.function, node.stmt.span),
                             self.model.in_function("var_uses", node.function))
        return self._root_pattern(found) if found is not None else None

    def _root_pattern(self, pattern: str) -> str | None:
        """``pattern`` in the root function's names through every active call
        (omp.nest_cover.bind_pattern), when none of its variables or member paths may
        change in the region (omp.changes, from the AST); else None."""
        variables = self.model.cached(("omp.cover.variables",), lambda: frozenset(
            u.name for u in self.model.var_uses))
        pieces = [p for half in pattern.split(" | ") for p in half.split(" ; ")]
        for ir, call in reversed(self._callees):
            pieces = bind_pattern(pieces, ir.function, call.args,
                                  self._assigned(ir.function.name),
                                  ir.definitions, variables)
            if pieces is None:
                return None
        if self.scope is None or \
                any(changing_term(self.model, p, self.scope) is not None for p in pieces):
            return None
        try:
            pieces = [render(poly(p)) for p in pieces]
        except NotPoly:
            return None
        half = pattern.split(" | ")[0].count(" ; ") + 1
        return f"{' ; '.join(pieces[:half])} | {' ; '.join(pieces[half:])}"

    def _runs_on_device(self, node: Node) -> bool:
        """No ``if`` clause on the kernel's directives: it may not run on the host."""
        index = node.directive
        while index is not None:
            directive = self.model.directives[index]
            if directive.clause("if"):
                return False
            index = directive.parent
        return True

    def _copy_to_host(self, update: Update, state: State, frame: Frame, node: Node) -> None:
        name = frame.resolve(update.name)
        for label in state.get_pts(name) & self.candidates:
            items = self.read_backs.get((id(node.stmt), norm_text(update.name)), [])
            sections = [self._root_section(s) if s else self._whole(label) for s in items]
            if not sections or None in sections:
                self.unsafe.add(label)
                continue
            for section in sections:
                self.copied_back.append((label, section, state.cover.get(label, frozenset())))

    # --- sections in the root function's names ------------------------------------------------

    def _root_section(self, section: str | None) -> str | None:
        """``section`` of the innermost active function in the root function's names, when
        its variables are scalar parameters bound (through every call) to expressions of
        variables that nothing in the region or its callees changes; else None. A member
        path (``d->n``) is refused: the cover is kept for plain variables."""
        if section is None or not section.startswith("[") or section.count(":") != 1:
            return None
        parts = section.strip()[1:-1].split(":")
        for scalars, function in reversed(self._bindings):
            parts = [self._in_caller(part, scalars, function) for part in parts]
            if None in parts:
                return None
        if any(re.search(r"\.|->", part) for part in parts):
            return None
        names = {v for part in parts for v in _ANY_IDENT.findall(part)}
        if any(self._changes(v) for v in names):
            return None
        try:
            return f"[{render(poly(parts[0]))}:{render(poly(parts[1]))}]"
        except NotPoly:
            return None

    def _changes(self, name: str) -> bool:
        """Whether the variable ``name`` may change in the region or its callees
        (omp.changes, from the AST's mentions), or has its address taken anywhere in the
        root function (a pointer to it may write it inside the region); memoized."""
        if name not in self._changing:
            addressed = self.model.cached(
                ("omp.cover.addressed", self.scope.function), lambda: frozenset(
                    u.name for u in self.model.in_function("var_uses", self.scope.function)
                    if u.role == "address"))
            self._changing[name] = name in addressed or \
                changing_term(self.model, name, self.scope) is not None
        return self._changing[name]

    def _in_caller(self, text: str, scalars: dict, function: str) -> str | None:
        """``text`` of the callee ``function`` with its parameters replaced by the caller's
        arguments; None when it uses anything else, a member path, or a parameter the callee
        declares again, assigns, steps or takes the address of (its mentions, ``VarUse``;
        a callee whose mentions were not extracted binds nothing)."""
        failed = []
        assigned = self._assigned(function) \
            if self.model.in_function("var_uses", function) else None

        def replace(match) -> str:
            name = match.group(0)
            if scalars.get(name) is None or assigned is None or name in assigned:
                failed.append(name)
                return name
            return f"({scalars[name]})"

        out = _IDENT.sub(replace, text)
        if failed or re.search(r"\.|->", text):
            return None
        return out

    def _whole(self, label: str) -> str | None:
        section = self.lengths.get(label, "")
        return section if section.startswith("[") else None

    def _size(self, label: str) -> str | None:
        section = self._whole(label)
        if section is None:
            return None
        low, _, length = section[1:-1].partition(":")
        return length if _same_value(low, "0") else None


def _add_section(cover: frozenset, section: str) -> frozenset:
    if any(within(section, known) for known in cover):
        return cover
    kept = frozenset(k for k in cover if not within(k, section))
    return kept | {section} if len(kept) < MAX_SECTIONS else kept


def _same(a: str, b: str) -> bool:
    return within(a, b) and within(b, a)


def _same_value(a: str, b: str) -> bool:
    try:
        return poly(a) == poly(b)
    except NotPoly:
        return False


def _root(name: str) -> str:
    match = _ANY_IDENT.match(name)
    return match.group(0) if match else name


# --- does a loop run at least once? ------------------------------------------------------------

def surely_entered(loop: Node, function, model, text) -> bool:
    """Whether a counting loop ``for (i = a; i < b; ...)`` runs its body at least once:
    ``b - a`` is a positive constant, or an early exit before it rules the opposite out —
    ``if (n < 3 || sweeps < 1) { ...; return 1; }`` leaves ``sweeps >= 1``. The guard must
    dominate the loop (an earlier statement of an enclosing block, no ``case``/label in
    between), leave by ``return``/``exit()`` with no other jump, and its variables must be
    the function's own (parameters or locals), never assigned after it nor have their
    address taken."""
    found = counting_loop(loop.stmt, stride=True)
    if found is None:
        return False
    _, first, op, bound, _ = found
    try:
        need = add(poly(bound), scale(poly(first), -1))
    except NotPoly:
        return False
    strict = op == "<"
    if set(need) <= {()}:
        return need.get((), 0) > 0 or (not strict and need.get((), 0) == 0)
    return guarded_positive(need, strict, loop, function, model)


def loop_need(loop: Node):
    """(``b - a`` as a polynomial, whether the test is strict) of a counting loop ``for (i
    = a; i < b; ...)``; None for any other loop."""
    found = counting_loop(loop.stmt, stride=True)
    if found is None:
        return None
    _, first, op, bound, _ = found
    try:
        return add(poly(bound), scale(poly(first), -1)), op == "<"
    except NotPoly:
        return None


def guarded_positive(need: dict, strict: bool, anchor: Node, function, model) -> bool:
    """Whether an early exit before ``anchor`` in ``function`` leaves ``need`` positive
    (non-negative where not ``strict``), its variables unchanged after the guard."""
    for guard in _guards(anchor, never_returning(model)):
        for fact, fact_strict in _negated_tests(guard.stmt.tests):
            margin = add(need, scale(fact, -1))
            if set(margin) - {()}:
                continue
            gap = margin.get((), 0)
            if gap < 0 or (gap == 0 and strict and not fact_strict):
                continue
            if _own_and_unchanged(fact, guard, function, model):
                return True
    return False


def _guards(loop: Node, never: frozenset[str]):
    """``if`` statements that run before ``loop`` on every path reaching it and leave
    (``never``: the functions that never return)."""
    child, parent = loop, loop.parent
    while parent is not None:
        if parent.kind == "seq" and child.jump not in ("case", "default", "label"):
            for sibling in reversed(parent.children[:parent.children.index(child)]):
                if sibling.jump in ("case", "default", "label"):
                    break
                if sibling.kind == "if" and sibling.stmt is not None and \
                        sibling.stmt.cond is not None and _always_leaves(sibling.children[0], never):
                    yield sibling
        child, parent = parent, parent.parent


def _always_leaves(branch: Node, never: frozenset[str]) -> bool:
    if any(n.jump in ("break", "continue", "goto", "label", "case", "default")
           for n in branch.walk()):
        return False
    last = branch
    while last.kind == "seq" and last.children:
        last = last.children[-1]
    if last.kind == "jump" and last.jump == "return":
        return True
    return last.kind in ("leaf", "loop") and last.stmt is not None and \
        ends_program(last.stmt, never)


def _negated_tests(tests):
    """For each comparison ``x < y`` among a guard condition's top-level ``||`` operands
    (``Stmt.tests``, from the AST): what holds when it is false, as (``p``, strict) meaning
    ``p > 0`` (strict) or ``p >= 0`` (real arithmetic, so the facts hold for floating-point
    variables too)."""
    for test in tests:
        try:
            left, right = poly(norm_text(test.left)), poly(norm_text(test.right))
        except NotPoly:
            continue
        if test.op in ("<", "<="):  # false: left >= right (or >)
            yield add(left, scale(right, -1)), test.op == "<="
        else:  # false: left <= right (or <)
            yield add(right, scale(left, -1)), test.op == ">="


def _own_and_unchanged(fact: dict, guard: Node, function, model) -> bool:
    """Whether every variable of ``fact`` is a parameter of ``function`` or a local it
    declares before the guard, never changed after it (:func:`omp.facts.unchanged_after`)."""
    atoms = {atom for key in fact for atom in key}
    return unchanged_after(model, function, sorted(atoms), guard.stmt.span.start,
                           guard.stmt.span.end)


# --- the result the planner uses -------------------------------------------------------------


@dataclass
class EntryCoverage:
    """What one coverage run found; :meth:`entry_copy` answers per label."""

    interp: CoverInterpreter
    exit_cover: dict

    def entry_copy(self, label: str, exit_sections: list[str]) -> list[str] | None:
        """The sections to copy in instead of the whole array (possibly none), or None when
        the array must keep ``map(to:)``: some read is unbounded, too many or unbounded
        pieces, or a copy to the host (inside the region, or the ``exit_sections`` at its
        end) may include elements neither copied in nor written by the device."""
        interp = self.interp
        if label in interp.unsafe or label not in interp.candidates:
            return None
        # with the nest patterns first; where their copies to the host fail the check, as
        # without them (never more elements than that)
        for whole, exposed in ((interp.whole, interp.exposed),
                               (interp.whole_plain, interp.exposed_plain)):
            if label not in whole:
                found = self._checked(label, list(exposed.get(label, [])), exit_sections)
                if found is not None:
                    return found
        return None

    def _checked(self, label: str, pieces: list[str], exit_sections: list[str]
                 ) -> list[str] | None:
        """``pieces`` when every copy to the host stays within the cover and them, and
        they can be copied; else None."""
        interp = self.interp
        size = interp._size(label)
        checks = [(s, c) for lab, s, c in interp.copied_back if lab == label]
        checks += [(s, self.exit_cover.get(label, frozenset())) for s in exit_sections]
        for section, cover in checks:
            if section is None or interp.subtract(section, list(cover) + pieces, size):
                return None
        if len(pieces) > MAX_SECTIONS or not all(self._copyable(label, p) for p in pieces):
            return None
        return pieces

    def _copyable(self, label: str, piece: str) -> bool:
        """A constant number of elements, and for more than one, inside the mapped section
        (a ``target update`` of a section only partly mapped is an error; one element is
        either mapped or skipped)."""
        low, _, length = piece[1:-1].partition(":")
        try:
            count = poly(length)
        except NotPoly:
            return False
        if set(count) - {()} or count.get((), 0) < 1:
            return False
        if count.get((), 0) == 1:
            return True
        whole = self.interp._whole(label)
        if whole is None:
            return False
        try:
            w_low, _, w_len = whole[1:-1].partition(":")
            start = add(poly(low), scale(poly(w_low), -1))
            end = add(add(poly(w_low), poly(w_len)), scale(add(poly(low), count), -1))
        except NotPoly:
            return False
        return all(set(m) <= {()} and m.get((), 0) >= 0 for m in (start, end))


def entry_coverage(solver, entry: State, updates) -> EntryCoverage:
    """Run the coverage dataflow over the planner's region (``solver``: its IRs, nodes,
    sections) from ``entry`` with the final copies in place (``updates``: the planned
    ``target update`` list); the labels ``entry`` holds fresh on the device are the ones
    an entry copy would bring."""
    read_backs: dict = {}
    for update in updates:
        if update.motion != "from" or update.after:
            continue
        name, bracket, rest = update.item.partition("[")
        read_backs.setdefault((id(update.anchor), norm_text(name)), []).append(
            bracket + rest)
    text = source_texts(solver.source)
    copied_in = frozenset(label for label, sides in entry.entry.items() if "D" in sides)
    interp = CoverInterpreter(
        solver.irs, solver.tracked, solver.lengths, solver.locals_of, record=True,
        distinct=solver.distinct, section_of=solver.section_of, length_memo={},
        candidates=copied_in & solver.tracked, model=solver.model, source=solver.source,
        text=text, read_backs=read_backs, ignored=solver.ignored,
        settled=settled_definitions(solver.model, solver.function))
    scope = region_scope(solver.nodes, solver.irs)
    interp.scope = replace(scope, read_only=read_only_addresses(solver.model, scope))
    try:
        exit_state = interp.run_range(solver.nodes, entry, solver.frame)
    except Unsupported:  # the planner's own runs succeeded; keep every entry copy anyway
        interp.candidates = frozenset()
        exit_state = None
    return EntryCoverage(interp, dict(exit_state.cover) if exit_state is not None else {})
