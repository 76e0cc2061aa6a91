"""Where host and device copies of each array are fresh: an abstract interpretation of the IR.

The state maps each pointer name to the sides ('H', 'D') whose copy of the storage it points
to holds the newest data, and to the set of storage labels it may point to (flow-sensitive
points-to through pointer copies, so a swap of double buffers keeps the facts with the
buffers). A read on a side whose copy is not fresh, or a partial write there, is a
*requirement failure*: a copy (``target update``) is needed before it. Loops are iterated to a
fixpoint, branches meet (intersection of fresh sides, union of points-to), and calls to
functions of the same file are analyzed in place with their parameters bound to the
arguments, so summaries are exact per calling context.

The lattice (states, their meet, failures, frames) is :mod:`s2s.analysis.omp.state`; the
call rules are :mod:`s2s.analysis.omp.calls`. This module holds the statement, loop and
access rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from s2s.analysis.omp.calls import CallHandling
from s2s.analysis.omp.ir import Access, Assign, CallEvent, Copy, FunctionIR, Node, Update
from s2s.analysis.omp.state import (
    BOTH,
    HOST,
    NEST,
    Failure,
    Frame,
    State,
    Unsupported,
    meet,
    norm_text,
    path_root,
)
from s2s.analysis.polynomial import (
    disjoint,
    expand,
    mentioned,
    mentions,
    same_value,
    trim,
)


def _expansions(text: str, definitions: dict[str, str], rounds: int = 4) -> list[str]:
    """``text`` and its expansions by ``definitions`` one more level each time."""
    out = [text]
    for _ in range(rounds):
        deeper = expand(out[-1], definitions, rounds=1)
        if deeper == out[-1]:
            break
        out.append(deeper)
    return out


def _unwrapped(text: str) -> str:
    """``text`` without parentheses around a lone name (``(mesh).nnode`` is
    ``mesh.nnode``; ``f(x)`` stays a call, ``(size_t)n`` a cast)."""
    while True:
        plain = _WRAPPED.sub(r"\1", text)
        if plain == text:
            return text
        text = plain


#: a lone name in parentheses, not a call's argument list nor a cast
_WRAPPED = re.compile(r"(?<![\w\])])\(\s*([A-Za-z_]\w*)\s*\)(?!\s*[\w(])")
#: a variable's name in a count (not a member's: ``n`` of ``d->n`` is no variable)
_NAME = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")
#: ``d->n``, ``g.n``: one member of a variable
_MEMBER_PATH = re.compile(r"[A-Za-z_]\w*\s*(?:->|\.)\s*[A-Za-z_]\w*")

@dataclass
class Interpreter(CallHandling):
    """Runs the IR of ``root`` from an entry state; records failures for tracked names."""

    irs: dict[str, FunctionIR]
    tracked: frozenset | None  # storage labels mapped in the region (None: all)
    lengths: dict[str, str]  # label -> section length text in root-scope names
    locals_of: dict[str, frozenset]
    record: bool = False
    distinct: frozenset = frozenset()  # names that never share storage (swapped buffers)
    #: element section ``[i:1]`` of a host write in the region's own function, or None
    section_of: object = None
    failures: dict = field(default_factory=dict)
    device_labels: set = field(default_factory=set)
    #: label -> {(function, local name, pointer bindings, scalar bindings)} of device accesses
    device_uses: dict = field(default_factory=dict)
    _loops: list = field(default_factory=list)
    _returns: list = field(default_factory=list)
    _stack: list = field(default_factory=list)
    _calls: list = field(default_factory=list)  # (call node, caller frame) of active calls
    clobbers: list = field(default_factory=list)  # updates that would copy stale data
    pushed: set = field(default_factory=set)  # (id(node), name) of elements pushed after
    _pushed_now: list = field(default_factory=list)  # (name, element) pushed by this statement
    _device_loops: dict = field(default_factory=dict)  # id(loop node) -> it runs device work
    #: _same_length answers; shared by the interpreters of one planning run (same file)
    length_memo: dict = field(default_factory=dict)
    #: (function, variable) -> whether the function may assign or declare it (omp.changes.
    #: assigns_any; None: device writes in callees are not located)
    assigns: object = None
    #: _in_root translations; shared like length_memo
    root_memo: dict = field(default_factory=dict)
    #: label -> ``[0:count]`` of arrays mapped whole by name (``int hist[NBINS]``): what a
    #: loop must cover to write one whole
    whole_counts: dict = field(default_factory=dict)
    #: label -> ``[0:count]`` of a struct member's whole storage (omp.member_counts): a
    #: write of all of it is a full write whatever section the region maps
    storage_counts: dict = field(default_factory=dict)
    #: ids of host accesses to elements no kernel of the region touches (omp.touched):
    #: they neither need the device's copy nor make it stale where it is ever read
    ignored: frozenset = frozenset()

    # --- entry points ---------------------------------------------------------------------

    def run_range(self, nodes: list[Node], state: State, frame: Frame) -> State | None:
        self._stack = [frame.function]
        for node in nodes:
            state = self.run(node, state, frame)
            if state is None:
                return None
        return state

    # --- statements -----------------------------------------------------------------------

    def run(self, node: Node, state: State | None, frame: Frame) -> State | None:
        if state is None:
            return None
        saved = {}
        for update in node.before:
            if update.scoped:
                name = frame.resolve(update.name)
                for other in state.same_storage(name):
                    saved.setdefault(other, (state.get_valid(other), state.get_dirty(other)))
            state = self.event(update, state, frame, node)
        if saved and node.kind == "jump" and node.jump == "return":
            # ``return f.u[0];``: the state leaves through the function's returns
            returns = len(self._returns)
            out = self._run(node, state, frame)
            self._returns[returns:] = [self._unscoped(r, saved, node, frame)
                                       for r in self._returns[returns:]]
            return out
        out = self._run(node, state, frame)
        if out is not None and saved:
            out = self._unscoped(out, saved, node, frame)
        return out

    def _unscoped(self, out: State, saved: dict, node: Node, frame: Frame) -> State:
        """The state after a statement whose scoped updates copied only what it reads: the
        arrays they made fresh are as stale as before it."""
        out = out.copy()
        for name, (valid, dirty) in saved.items():
            if out.get_valid(name) == BOTH:  # only read while fresh: as stale as before
                out.valid[name] = valid
                out.dirty[name] = dirty
        for event in node.events:  # (the sections from before the statement, too)
            if isinstance(event, Assign):
                out = self._assign(event, out, frame)
        return out

    def _run(self, node: Node, state: State, frame: Frame) -> State | None:
        kind = node.kind
        if kind in ("leaf", "kernel"):
            self._pushed_now = []
            for event in node.events:
                state = self.event(event, state, frame, node)
            for name, element in self._pushed_now:
                state = _trim_stale(state, name, element)
            return state
        if kind == "seq":
            return self._seq(node, state, frame)
        if kind == "loop":
            return self._loop(node, state, frame)
        if kind == "if":
            state = self.events(node.cond, state, frame, node)
            equal = _pointer_test(node)
            then_state, else_state = state.copy(), state.copy()
            if equal is not None:
                same_storage(then_state if equal[2] else else_state,
                             frame.resolve(equal[0]), frame.resolve(equal[1]))
            then = self.run(node.children[0], then_state, frame)
            orelse = self.run(node.children[1], else_state, frame)
            return meet(then, orelse)
        if kind == "switch":
            return self._switch(node, state, frame)
        if kind == "jump":
            state = self.events(node.events, state, frame, node)
            return self._jump(node, state)
        raise AssertionError(kind)

    def _seq(self, node: Node, state: State, frame: Frame) -> State | None:
        for child in node.children:
            if child.jump in ("case", "default") and self._loops and \
                    self._loops[-1]["switch"] is not None:
                state = meet(state, self._loops[-1]["switch"])
            state = self.run(child, state, frame)
        return state

    def _jump(self, node: Node, state: State) -> None:
        if node.jump == "return":
            self._returns.append(state)
        elif node.jump == "break" and self._loops:
            self._loops[-1]["breaks"].append(state)
        elif node.jump == "continue":
            for loop in reversed(self._loops):
                if loop["switch"] is None:
                    loop["continues"].append(state)
                    break
        elif node.jump == "goto":
            raise Unsupported("goto")
        return None

    def _loop(self, node: Node, state: State, frame: Frame) -> State | None:
        state = self.events(node.events, state, frame, node)
        if node.init is not None:
            state = self.run(node.init, state, frame)
            if state is None:
                return None
        state = self._first_trip(node, state, frame)
        recording, self.record = self.record, False
        head = state
        for _ in range(50):
            back, _ = self._iteration(node, head, frame)
            new_head = meet(state, back)
            if new_head.same(head):
                break
            head = new_head
        else:  # pragma: no cover - the lattice is finite; 50 rounds mean a bug
            raise Unsupported("loop analysis did not converge")
        self.record = recording
        back, exit_state = self._iteration(node, head, frame)
        if recording and back is not None and not frame.prefix:
            self._join_fixes(node, state, back)
        return self._loop_exit(node, back, exit_state, frame)

    def _first_trip(self, node: Node, state: State, frame: Frame) -> State:
        """The state the loop's fixpoint starts from, after its ``init`` (a hook: an
        analysis that knows the loop runs at least once may run the first trip alone, so
        that what it surely does holds from the second trip on)."""
        return state

    def _loop_exit(self, node: Node, back: State | None, exit_state: State | None,
                   frame: Frame) -> State | None:
        """The state after a loop, given the state at the end of an iteration (a hook: an
        analysis that knows the loop runs at least once may keep what an iteration did)."""
        return exit_state

    def _join_fixes(self, loop: Node, entry: State, back: State) -> None:
        """An array fresh only on the host when the loop is entered and only on the device
        when an iteration ends (or the reverse) is stale on both sides at the loop head: a
        copy before the loop makes the entry agree with the iterations."""
        for name in sorted(set(entry.valid) | set(back.valid)):
            before, after = entry.get_valid(name), back.get_valid(name)
            if before and after and not before & after and self._tracked(back, name):
                side = next(iter(after))
                key = ("join", id(loop), name)
                if key not in self.failures:
                    self.failures[key] = Failure(loop, self._stack[0], name, name,
                                                 back.get_pts(name), side, False, None, before,
                                                 dirty=entry.get_dirty(name))

    def _iteration(self, node: Node, head: State, frame: Frame):
        """One trip around the loop from ``head``: (state back at the head, exit state)."""
        self._loops.append({"breaks": [], "continues": [], "switch": None})
        if node.loop_kind == "do":
            out = self.run(node.body, head.copy(), frame)
            out = self.events(node.after_body, out, frame, node) if out is not None else None
            ctx = self._loops.pop()
            after = meet(out, *ctx["continues"])
            after = self.events(node.cond, after, frame, node) if after else None
            return after, meet(after, *ctx["breaks"])
        entered = self.events(node.cond, head.copy(), frame, node)
        out = self.run(node.body, entered.copy(), frame)
        out = self.events(node.after_body, out, frame, node) if out is not None else None
        ctx = self._loops.pop()
        back = meet(out, *ctx["continues"])
        if back is not None:
            back = self.events(node.step, back, frame, node)
        return back, meet(entered, *ctx["breaks"])

    def _switch(self, node: Node, state: State, frame: Frame) -> State | None:
        state = self.events(node.cond, state, frame, node)
        self._loops.append({"breaks": [], "continues": [], "switch": state})
        out = self.run(node.body, state.copy(), frame)
        ctx = self._loops.pop()
        has_default = any(n.jump == "default" for n in node.body.walk())
        return meet(out, *ctx["breaks"], None if has_default else state)

    # --- events ---------------------------------------------------------------------------

    def events(self, events, state: State, frame: Frame, node: Node) -> State:
        for event in events:
            state = self.event(event, state, frame, node)
            if state is None:
                raise Unsupported("a call that never returns in a condition")
        return state

    def event(self, event, state: State, frame: Frame, node: Node) -> State | None:
        if isinstance(event, Access):
            if id(event) in self.ignored:
                return state
            return self._access(event, state, frame, node)
        if isinstance(event, Copy):
            return self._copy(event, state, frame)
        if isinstance(event, Update):
            return self._update(event, state, frame)
        if isinstance(event, Assign):
            return self._assign(event, state, frame)
        if isinstance(event, CallEvent):
            self._calls.append((node, frame))
            try:
                if event.alternatives:  # through a function pointer (omp.dispatch)
                    return meet(*(self._call(one, state, frame) for one in event.each_target()))
                return self._call(event, state, frame)
            finally:
                self._calls.pop()
        raise AssertionError(event)

    def _assign(self, assign: Assign, state: State, frame: Frame) -> State:
        """Sections are texts over the root function's variables: ``[m*r:m]`` recorded by
        the kernel of one trip names other elements after ``r++``. Stale and written
        sections that mention a changed variable are forgotten (stale: anywhere; written:
        not known). In a called function only its non-local names can be the root's."""
        names = assign.names if not frame.prefix and not frame.pointers and \
            not frame.scalars else frozenset(
                n for n in assign.names if n not in frame.locals and n not in frame.pointers
                and n not in frame.scalars)
        if not names:
            return state
        stale = [n for n, d in state.dirty.items() if d and mentioned(d, names)]
        # (a nest pattern's terms change nowhere in the region: omp.cover checks that first)
        covered = [label for label, c in state.cover.items()
                   if c and not label.endswith(NEST) and mentioned(c, names)]
        if not stale and not covered:
            return state
        state = state.copy()
        for name in stale:
            state.dirty[name] = None
        for label in covered:
            state.cover[label] = frozenset(s for s in state.cover[label]
                                           if not mentions(s, names))
        return state

    def _tracked(self, state: State, name: str) -> bool:
        return self.tracked is None or bool(state.get_pts(name) & self.tracked)

    def _access(self, access: Access, state: State, frame: Frame, node: Node) -> State:
        name = frame.resolve(access.name)
        if access.side == "D" and self.tracked is None:  # the survey: what kernels use
            labels = state.get_pts(name)
            self.device_labels |= labels
            for label in labels:
                self.device_uses.setdefault(label, set()).add(
                    (frame.function, access.name, tuple(sorted(frame.pointers.items())),
                     tuple(sorted(frame.scalars.items()))))
        if not self._tracked(state, name):
            return state
        side = access.side
        full = access.full is not None and path_root(access.name) not in frame.offset_bound and \
            self._same_length(access.full, frame, state.get_pts(name))
        needs = access.reads or (access.writes and not full)
        through = side == "H" and access.writes and access.name in node.write_through
        newest = through and not access.reads and self._device_newest(node, access, state, name)
        # (a statement that reads the element too: pushed only where both copies are fresh)
        read_both = through and access.reads and state.get_valid(name) == BOTH
        # (both copies fresh: pushed, they stay equal, and a copy at the region's entry
        # still serves the kernels after it)
        equal = through and not access.reads and not newest and \
            state.get_valid(name) == BOTH and self._once_per_device_step(node)
        if newest or read_both or equal:
            # The element goes to the device right after the statement: the device copy
            # stays the newest one everywhere, the host copy stays stale elsewhere (a
            # statement that reads the element too is pushed only where both copies are
            # fresh, and both stay so).
            if self.record:
                self.pushed.add((id(node), access.name))
            state = state.copy()
            if newest or read_both:
                state.pristine[name] = False
            element = self.section_of(access)
            if element is not None:
                # Once the statement is done both copies agree on that element (not before:
                # the statement may read it first, ``a[0] = f(a[0])``).
                self._pushed_now.append((name, element))
            return state
        if needs and side not in state.get_valid(name) and \
                not self._fresh_element(access, state, name, frame):
            self._fail(node, frame, access, name, side, state)
        if access.writes:
            known = state.get_dirty(name)
            # a host element write that a copy at the entry would let be pushed (``equal``
            # above) leaves the array as good as untouched for choosing that entry copy
            pushable = side == "H" and not access.reads and \
                access.name in node.write_through and \
                state.get_valid(name) == frozenset("H") and state.pristine.get(name, True) and \
                self._once_per_device_step(node)
            state = state.copy()
            pts = state.get_pts(name)
            aliases = [n for n in set(state.valid) | set(state.pts) | set(pts) | {name}
                       if state.get_pts(n) & pts]
            for other in aliases:
                if other != name and other in self.distinct and name in self.distinct:
                    continue
                if other != name and len(pts) == 1 and state.get_pts(other) == pts:
                    state.valid[other] = frozenset(side)  # the same storage for sure
                elif other != name:
                    state.valid[other] = state.get_valid(other) & frozenset(side)
                if side == "H" and not pushable:
                    state.pristine[other] = False
            state.valid[name] = frozenset(side)
            dirty = None
            root_frame = not frame.prefix and not frame.pointers and not frame.scalars
            if side == "H" and not full and self.section_of is not None and root_frame:
                section = self.section_of(access)
                if known is not None and section is not None and len(known) < 4:
                    dirty = known | {section}
            elif side == "D" and root_frame and full and \
                    len({self.lengths.get(label) for label in pts}) == 1 and \
                    self.lengths.get(next(iter(pts))):
                # The host copy is stale everywhere: the whole mapped section.
                dirty = frozenset((self.lengths[next(iter(pts))],))
            elif side == "D" and access.extent is not None and known is not None and \
                    len(known) < 4:
                # The host copy is now stale only where kernels wrote since both were fresh
                # (a callee's kernel: its extent in the root function's names).
                extent = access.extent if root_frame else \
                    self._in_root(access.extent, frame, access.name)
                dirty = known | {extent} if extent is not None else None
            for other in aliases:
                if other == name or (len(pts) == 1 and state.get_pts(other) == pts):
                    state.dirty[other] = dirty
                elif other not in self.distinct or name not in self.distinct:
                    state.dirty[other] = None
        return state

    @staticmethod
    def _device_newest(node: Node, access: Access, state: State, name: str) -> bool:
        """Whether the device copy is the newest where a pushed element is written: stale on
        the host, or fresh there only because an update right before this statement brought
        what it reads (``a[0] = f(a[0])``): pushing the element keeps both copies equal."""
        valid = state.get_valid(name)
        return valid == frozenset("D") or (valid == BOTH and any(
            isinstance(u, Update) and u.side == "H" and u.name == access.name
            for u in node.before))

    def _once_per_device_step(self, node: Node) -> bool:
        """Whether a statement runs at most once between two device steps: no loop holds it,
        or its innermost loop also runs device work (a time loop). There, pushing the one
        element a host write changes keeps both copies fresh for fewer bytes than the whole
        array the next kernel would otherwise need; in a host-only loop (an initialisation
        sweep) it would be one copy per element."""
        loop = node.parent
        while loop is not None and loop.kind != "loop":
            loop = loop.parent
        if loop is None:
            return True
        if id(loop) not in self._device_loops:
            self._device_loops[id(loop)] = any(
                n.kind == "kernel" or any(
                    isinstance(e, CallEvent) and callee in self.irs and
                    self.irs[callee].has_device
                    for e in n.events + n.cond + n.step if isinstance(e, CallEvent)
                    for callee in e.targets)
                for n in loop.walk())
        return self._device_loops[id(loop)]

    def _fresh_element(self, access: Access, state: State, name: str, frame: Frame) -> bool:
        """A host read of one element that no kernel wrote since both copies were fresh:
        the host copy of that element is still the newest one."""
        if access.side != "H" or access.writes or self.section_of is None or \
                frame.prefix or frame.pointers or "D" not in state.get_valid(name):
            return False
        written = state.get_dirty(name)
        section = self.section_of(access) if written is not None else None
        return section is not None and all(disjoint(section, part) for part in written)

    def _same_length(self, count: str, frame: Frame, labels: frozenset) -> bool:
        key = (count, frame.function, tuple(sorted(frame.scalars.items())), labels,
               tuple(self._stack))
        if key not in self.length_memo:
            self.length_memo[key] = self._compare_length(count, frame, labels)
        return self.length_memo[key]

    def _compare_length(self, count: str, frame: Frame, labels: frozenset) -> bool:
        root = self._stack[0] if self._stack else frame.function
        text = count if frame.function == root else self._count_in_root(count, frame)
        if text is None:
            return False
        mapped = {self.lengths.get(label, "") or self.whole_counts.get(label, "")
                  for label in labels}
        stored = {self.storage_counts.get(label, "") for label in labels}
        # the section mapped, else the member's whole storage (``P->rho[0:P->n]`` covers
        # whatever part of it the region maps: omp.member_counts proved the count)
        return any(self._same_count(text, wanted, root) for wanted in (mapped, stored))

    def _same_count(self, text: str, wanted: set, root: str) -> bool:
        """Whether the count ``text`` (in the root's names) is the one length in ``wanted``
        (section texts ``[0:n]``)."""
        wanted = {_section_length(section) for section in wanted}
        if len(wanted) != 1 or None in wanted:
            return False
        wanted_text = wanted.pop()
        text, wanted_text = _unwrapped(text), _unwrapped(wanted_text)
        if same_value(text, wanted_text):
            return True
        # both in the root's names now: only the root's definitions expand them, a level
        # at a time (a polynomial one level down may not be one further down: ``n`` of a
        # ``size`` defined as ``n`` is ``argc > 1 ? ... : 1000``)
        definitions = self.irs[root].definitions if root in self.irs else {}
        texts, wanted_texts = _expansions(text, definitions), _expansions(wanted_text,
                                                                          definitions)
        return any(same_value(a, b) for a in texts for b in wanted_texts)

    def _count_in_root(self, count: str, frame: Frame) -> str | None:
        """The element count ``count`` of a full write in a called function, in the root's
        names: the callee's own definitions expanded (``int size = m / 2;``), then its scalar
        parameters replaced by the root's arguments (:meth:`_with_arguments`). None where a
        name the callee declares is left (``size`` of the callee is not ``size`` of the root:
        merging the two functions' definitions by name took one for the other), or a member
        path (its struct is the callee's)."""
        callee = self.irs.get(frame.function)
        if callee is None or callee.scalar_locals is None:
            return None
        text = expand(count, callee.definitions)
        if text.strip() in frame.scalars and len(self._stack) == 2:
            return frame.scalars[text.strip()]
        if re.search(r"\.|->", text):
            # ``d->n`` with ``d`` the caller's pointer: the caller's member; so is each
            # member path of ``(p->nx) * (p->ny)`` (a product of plain definitions)
            if len(self._stack) != 2:
                return None
            paths = list(_MEMBER_PATH.finditer(text))
            if any(path_root(m.group(0)) not in frame.pointers for m in paths):
                return None
            text = _MEMBER_PATH.sub(lambda m: frame.resolve(re.sub(r"\s+", "", m.group(0))),
                                    text)
            if re.search(r"\.\s*[A-Za-z_]|->", _MEMBER_PATH.sub("", text)):
                return None     # a member of something else (``a[i].n``, ``f()->n``)
            names = set(_NAME.findall(_MEMBER_PATH.sub("", text)))
            own = {p.name for p in callee.function.params} | callee.scalar_locals
            return None if names & own else text
        names = set(_NAME.findall(text))
        own = {p.name for p in callee.function.params} | callee.scalar_locals
        if not names & own:
            return text     # globals and constants: the same in every function
        if names & own - frame.scalars.keys():
            return None
        return self._with_arguments(text, frame)

    def _with_arguments(self, count: str, frame: Frame) -> str | None:
        """``count`` with the callee's scalar parameters replaced by the texts they are bound
        to, or None when one of them may be assigned in the callee (its IR's ``Assign``s).
        Only in a function the root calls itself: deeper down an argument may be spelled in
        a middle function's names, which mean something else (or nothing) in the root."""
        callee = self.irs.get(frame.function)
        if callee is None or len(self._stack) != 2:
            return None
        names = set(re.findall(r"(?<![\w.>])[A-Za-z_]\w*", count)) & frame.scalars.keys()
        if not names or any(names & e.names for n in callee.root.walk()
                            for e in n.events + n.cond + n.step
                            if isinstance(e, Assign)):
            return None
        return re.sub(r"(?<![\w.>])[A-Za-z_]\w*",
                      lambda m: f"({frame.scalars[m.group(0)]})" if m.group(0) in names
                      else m.group(0), count)

    def _fail(self, node, frame, access, name, side, state):
        if not self.record:
            return
        key = (id(node), frame.function, name, side)
        if key not in self.failures:
            self.failures[key] = Failure(node, frame.function, access.name, name,
                                         state.get_pts(name), side,
                                         state.pristine.get(name, True), access,
                                         state.get_valid(name), tuple(self._calls),
                                         tuple(frame.scalars.items()), state.get_dirty(name))

    def _copy(self, copy: Copy, state: State, frame: Frame) -> State:
        if copy.choices:
            return self._choose(state, frame.resolve(copy.target),
                                [frame.resolve(name) for name in copy.choices])
        state = state.copy()
        target = frame.resolve(copy.target)
        if copy.source is None:
            state.pts[target] = frozenset((f"{target}@fresh",))
            state.valid[target] = HOST
            state.pristine[target] = False
            state.dirty[target] = None
            return state
        source = frame.resolve(copy.source)
        state.pts[target] = state.get_pts(source)
        state.valid[target] = state.get_valid(source)
        state.dirty[target] = state.get_dirty(source)
        state.pristine[target] = state.pristine.get(source, True)
        return state

    @staticmethod
    def _choose(state: State, target: str, sources: list[str]) -> State:
        """``target = c ? p : q``: it may point to any storage of the sources; a side is
        fresh for it only where it is for all of them; which elements are stale is not
        known."""
        state = state.copy()
        state.pts[target] = frozenset().union(*(state.get_pts(s) for s in sources))
        state.valid[target] = frozenset.intersection(*(state.get_valid(s) for s in sources))
        state.dirty[target] = None
        state.pristine[target] = all(state.pristine.get(s, True) for s in sources)
        return state

    def _update(self, update: Update, state: State, frame: Frame) -> State:
        name = frame.resolve(update.name)
        source = "H" if update.side == "D" else "D"
        if self._tracked(state, name) and source not in state.get_valid(name) and \
                update.side not in state.get_valid(name):
            # Copying from a stale copy over a stale copy cannot be right.
            self.clobbers.append((update, frame.function, name))
        elif self._tracked(state, name) and source not in state.get_valid(name):
            # The destination is fresh and the source is not: copying would destroy data
            # (an update placed in a function called in a state where it is wrong).
            self.clobbers.append((update, frame.function, name))
            return state
        state = state.copy()
        pts = state.get_pts(name)
        state.valid[name] = BOTH
        state.dirty[name] = frozenset()
        if len(pts) == 1:
            for other in list(state.pts):
                if state.get_pts(other) == pts:
                    state.valid[other] = BOTH
                    state.dirty[other] = frozenset()
        return state


def _section_length(section: str) -> str | None:
    """``[0:n]`` -> ``n``; None for other sections and whole arrays."""
    text = norm_text(section)
    return text[3:-1] if text.startswith("[0:") and text.endswith("]") else None


def _trim_stale(state: State, name: str, element: str) -> State:
    """After a statement whose one-element write went to the device: the element is no longer
    stale on the host (for ``name`` and the pointers certainly holding the same storage)."""
    written = state.get_dirty(name)
    if written is None or state.get_valid(name) != frozenset("D"):
        return state
    state = state.copy()
    trimmed = frozenset(left for left in (trim(part, element) for part in written)
                        if left is not None)
    for other in state.same_storage(name):
        state.dirty[other] = trimmed
    return state


_POINTER_TEST = re.compile(r"^\s*\(?\s*([A-Za-z_]\w*)\s*(==|!=)\s*([A-Za-z_]\w*)\s*\)?\s*$")


def _pointer_test(node: Node) -> tuple[str, str, bool] | None:
    """(a, b, whether the then-branch is where they are equal) for an ``if (a != b)`` or
    ``if (a == b)`` of two names (pointers, in a swap loop's epilogue)."""
    cond = node.stmt.cond if node.stmt is not None else None
    found = _POINTER_TEST.match(cond.text) if cond is not None else None
    if found is None:
        return None
    return found.group(1), found.group(3), found.group(2) == "=="


def same_storage(state: State, a: str, b: str) -> None:
    """On a path where pointers ``a`` and ``b`` are equal (``if (t != result) memcpy(result,
    t, ...)``: the else-branch, after a swap loop): both point to what both may point to,
    and a side fresh for either is fresh for that storage. Names the state does not track
    as pointers are left alone."""
    if a not in state.pts and b not in state.pts:
        return
    common = state.get_pts(a) & state.get_pts(b)
    if not common:
        return
    valid = state.get_valid(a) | state.get_valid(b)
    for name in (a, b):
        state.pts[name] = common
        state.valid[name] = valid
        state.dirty[name] = None
