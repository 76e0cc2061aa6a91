"""Entry copies and ``target update`` placements for one OpenMP data region, by repeated dataflow.

The :class:`Solver` runs the dataflow (omp.flow) over the region's statements with every
tracked array fresh only on the host, except those copied in at entry. Failures on arrays
the host has not yet touched become entry copies (``to``); every other failure gets one
``target update`` (omp.place), the earliest first, and the dataflow runs again, since one copy
often makes later failures go away; a host write of one element may instead be pushed to
the device right after it. A copy that would bring stale data in some calling context, or
one more than ``MAX_COPIES``, abandons the plan (:class:`Unsupported`).

It is kept apart from the planner (omp.plan) because it is the part that iterates: the
planner calls it until the arrays live after the region are consistent, and the coverage
run (omp.cover) reuses its inputs (IRs, statements, arrays, sections).
"""

from __future__ import annotations

import bisect
import re

from s2s.analysis.omp.callee_repoints import call_copies
from s2s.analysis.omp.changes import assigns_any
from s2s.analysis.omp.flow import Interpreter
from s2s.analysis.omp.ir import Node, called_functions
from s2s.analysis.omp.member_agree import agreed_count
from s2s.analysis.omp.member_counts import MEMBER
from s2s.analysis.omp.place import place_copy, push_after, push_candidates, source_texts
from s2s.analysis.omp.sections import atoms_of
from s2s.analysis.omp.sizes import allocation_of
from s2s.analysis.omp.state import BOTH, State, Unsupported
from s2s.analysis.polynomial import NotPoly, poly, render
from s2s.model import TranslationUnit
from s2s.model.host_facts import VALUE_ROLES

MAX_COPIES = 200


class Solver:
    """Entry copies and ``target update`` placements for one region, by repeated dataflow."""

    def __init__(self, model, irs, function, nodes, tracked, lengths, locals_of, frame,
                 source, distinct, ignored: frozenset = frozenset(), branches: bool = False):
        self.model, self.irs, self.function, self.nodes = model, irs, function, nodes
        self.tracked, self.lengths, self.locals_of, self.frame = tracked, lengths, locals_of, \
            frame
        self.source, self.distinct, self.ignored = source, distinct, ignored
        self.branches = branches  # copies may go before branches (omp.place.hoist_path)
        self.start = nodes[0].stmt.span.start
        self.top_ids = {id(n) for n in nodes}
        self._tops = None  # (starts, spans, in order) of the top-level statements
        self.section_of = _element_section(model, nodes)
        self.candidates = push_candidates(nodes, self.section_of)
        self.reading = [(node, access, section) for node, access, section in
                        push_candidates(nodes, _element_here, reading=True)
                        if access.name in tracked and not _changes_index(model, node, section)]
        self.pushing: list = []  # the reading candidates of the current run
        self.length_memo: dict = {}
        self.root_memo: dict = {}
        self.whole_counts = _whole_counts(model, function, tracked, lengths)
        self.storage_counts = _storage_counts(model, source, function, tracked)
        answers: dict[tuple[str, str], bool] = {}

        def assigns(function: str, name: str) -> bool:
            if (function, name) not in answers:
                answers[function, name] = assigns_any(model, function, (name,))
            return answers[function, name]

        self.assigns = assigns

    def _interpreter(self) -> Interpreter:
        return Interpreter(self.irs, self.tracked, self.lengths, self.locals_of, record=True,
                           distinct=self.distinct, section_of=self.section_of,
                           length_memo=self.length_memo, assigns=self.assigns,
                           root_memo=self.root_memo, whole_counts=self.whole_counts,
                           storage_counts=self.storage_counts,
                           ignored=self.ignored)

    def _run(self, to_labels):
        interp = self._interpreter()
        exit_state = interp.run_range(self.nodes, entry_state(self.model, self.function,
                                                              self.start, to_labels),
                                      self.frame)
        return interp, exit_state

    def solve(self, seed: set[str]):
        """(entry copies, updates, exit state) of the region (module doc). Where the plan
        copies a whole array in inside the region's loop only because the host changes one
        element of it there (``src[f * w + f] += 0.5f;`` each frame), the plan that copies
        it in once at the entry and pushes that element after each change is taken instead
        (:meth:`_with_element_pushes`)."""
        plain = self._solve(seed)
        pushes = self._element_pushes(plain[1])
        if not pushes:
            return plain
        try:
            pushed = self._solve(set(seed) | {a.name for _, a, _ in pushes}, pushes)
        except Unsupported:
            pushed = None
        if pushed is not None and self._with_element_pushes(plain[1], pushed[1], pushes):
            return pushed
        return self._solve(seed)  # (the nodes hold the last run's copies: run it again)

    def _element_pushes(self, updates: list) -> list:
        """The element writes that read the element too (omp.place.push_candidates with
        ``reading``) of an array the plan copies in whole, or in part, inside the loop of
        the region that holds the statement."""
        found = []
        for node, access, section in self.reading:
            top = node
            while top.parent is not None and id(top) not in self.top_ids:
                top = top.parent
            if top.kind != "loop" or top.stmt is None:
                continue
            if any(u.motion == "to" and not u.after and
                   u.item.partition("[")[0].strip() == access.name and
                   top.stmt.span.contains(u.at) for u in updates):
                found.append((node, access, section))
        return found

    @staticmethod
    def _with_element_pushes(plain: list, pushed: list, pushes: list) -> bool:
        """Whether the plan with the element pushes moves no more: it copies none of those
        arrays in by ``target update`` any more, and its other updates are the plain
        plan's."""
        names = {access.name for _, access, _ in pushes}
        elements = {access.name + section for _, access, section in pushes}

        def others(updates):
            return {(u.motion, u.item, u.at.start, u.after) for u in updates
                    if u.item.partition("[")[0].strip() not in names}

        if any(u.motion == "to" and u.item.partition("[")[0].strip() in names and
               u.item not in elements for u in pushed):
            return False
        return others(pushed) <= others(plain)

    def _solve(self, seed: set[str], pushes: list = ()):
        for ir in self.irs.values():
            for node in ir.root.walk():
                node.before.clear()
                node.after_body.clear()
                node.write_through.clear()
        self.pushing = list(pushes)
        for node, access, _ in [*self.candidates, *self.pushing]:
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
        if self._stepwise():
            placed = self._solve_stepwise(to_labels, text)
            if placed is not None:
                to_labels, updates = placed
                interp, exit_state = self._run(to_labels)       # the check run
                if not [f for f in interp.failures.values() if f.access is not None] and \
                        not interp.clobbers:
                    return to_labels, updates + self._pushes(interp), exit_state
            self._clear()
            interp, exit_state = self._run(to_labels)
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
            missing = {label for label in failure.labels if label in tracked} - to_labels
            if not failure.valid and missing:
                # fresh on neither side: a kernel wrote part of an array whose device copy
                # never got the rest (double buffers swapped each step write the interior of
                # either one): copied in at entry, the device copy stays whole
                to_labels |= missing
                interp, exit_state = self._run(to_labels)
                continue
            if not failure.valid:
                where = failure.access.ref.span.location() if failure.access.ref else \
                    function.name
                raise Unsupported(f"neither the host nor the device copy of "
                                  f"'{failure.local}' is known to be fresh at {where}")
            for item in _fixed_together(failure, joins, pending):
                updates += place_copy(item, irs, nodes, lengths, model, function.name, text,
                                      self.top_ids, self.branches)
            interp, exit_state = self._run(to_labels)
            if interp.clobbers:
                update, where, _ = interp.clobbers[0]
                raise Unsupported(f"a copy of '{update.name}' inside '{where}' would copy "
                                  f"stale data in one of its calling contexts")
        else:
            raise Unsupported(f"more than {MAX_COPIES} copies would be needed")
        return to_labels, updates + self._pushes(interp), exit_state

    def _pushes(self, interp) -> list:
        return [push_after(node, access, section, self.model)
                for node, access, section in [*self.candidates, *self.pushing]
                if (id(node), access.name) in interp.pushed]

    def _clear(self) -> None:
        for ir in self.irs.values():
            for node in ir.root.walk():
                node.before.clear()
                node.after_body.clear()
        # (write_through marks stay: they belong to the push candidates, not to copies)

    # --- statement by statement ---------------------------------------------------------------
    #
    # Fixing the earliest failure and running the whole region again costs a run per copy:
    # quadratic in a program whose main calls a thousand functions. The failures are fixed
    # in execution order anyway, and a copy placed inside top-level statement i leaves the
    # state at the entry of every statement before i as it was; so the statements are taken
    # one at a time from their saved entry state, each run again until it has no failure,
    # and only a copy placed in a called function sends the walk back to the first statement
    # that calls it. A check run over the whole region confirms the result (else the plan
    # is made the global way above).

    def _stepwise(self) -> bool:
        """Whether the region can be solved statement by statement: no ``return`` inside it
        (the interpreter carries return states across statements)."""
        return len(self.nodes) > 1 and not any(n.jump == "return" for top in self.nodes
                                               for n in top.walk())

    def _solve_stepwise(self, to_labels: set, text):
        nodes, irs = self.nodes, self.irs
        callees = [called_functions(irs, [top]) for top in nodes]
        first_call: dict[str, int] = {}     # function -> first top-level statement calling it
        for index, names in enumerate(callees):
            for name in names:
                first_call.setdefault(name, index)
        budget = MAX_COPIES + 4 * sum(1 for name in set().union(*callees) | {self.function.name}
                                      if name in irs for n in irs[name].root.walk()
                                      if n.kind == "kernel")
        states = [entry_state(self.model, self.function, self.start, to_labels)]
        updates, i, placed = [], 0, 0
        while i < len(nodes):
            interp = self._interpreter()
            interp._stack = [self.frame.function]
            out = interp.run(nodes[i], states[i].copy(), self.frame)
            if interp.clobbers:
                return None
            pending = [f for f in interp.failures.values() if f.access is not None]
            if not pending:
                if out is None:
                    return None
                del states[i + 1:]
                states.append(out)
                i += 1
                continue
            failure, joins = _first_to_fix(interp.failures.values())
            if failure.access is None and failure.node is nodes[0] or not failure.valid:
                return None                  # an entry copy, or no fresh side: the global way
            back = i
            for item in _fixed_together(failure, joins, pending):
                for update in place_copy(item, irs, nodes, self.lengths, self.model,
                                         self.function.name, text, self.top_ids,
                                         self.branches):
                    updates.append(update)
                    placed += 1
                    back = min(back, self._first_affected(update, first_call))
            if placed > budget:
                raise Unsupported(f"more than {budget} copies would be needed")
            i = back
            del states[i + 1:]
        return to_labels, updates

    def _first_affected(self, update, first_call: dict[str, int]) -> int:
        """The first top-level statement whose run the copy ``update`` can change (looked
        up, not scanned: a scan per copy was quadratic in a main of thousands of calls)."""
        if update.function == self.function.name:
            return self._top_at(update.anchor.span.start)
        return first_call.get(update.function, 0)

    def _top_at(self, offset: int) -> int:
        """The index of the first top-level statement whose span holds ``offset`` (0: none)."""
        if self._tops is None:
            spans = [(top.stmt.span.start, top.stmt.span.end) for top in self.nodes]
            ordered = all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
            self._tops = ([s for s, _e in spans], spans, ordered)
        starts, spans, ordered = self._tops
        if ordered:             # disjoint, in order: at most one holds it
            index = bisect.bisect_right(starts, offset) - 1
            return index if index >= 0 and offset < spans[index][1] else 0
        return next((index for index, (start, end) in enumerate(spans)
                     if start <= offset < end), 0)


def _fixed_together(failure, joins: bool, pending: list) -> list:
    """``failure`` and the first failure of every other storage: copies of different arrays
    change nothing for one another, so one round fixes them all. A join fix (a copy before
    a loop, see _first_to_fix) goes alone."""
    chosen, seen = [failure], set(failure.labels)
    if not joins:
        for other in pending[1:]:
            if other.valid and not other.labels & seen:
                chosen.append(other)
            seen |= other.labels
    return chosen


def _whole_counts(model, function, tracked, lengths) -> dict[str, str]:
    """``[0:N]`` per one-dimensional array mapped whole by name (``int hist[NBINS]``), so
    that a host loop over all of it counts as a write of the whole array."""
    out = {}
    for label in tracked:
        if lengths.get(label) != "":
            continue
        allocation = allocation_of(model, function, label)
        if allocation is not None and allocation.count is not None and \
                len(allocation.dims) <= 1:
            out[label] = f"[0:{allocation.count.text}]"
    return out


def _storage_counts(model, source, function, tracked) -> dict[str, str]:
    """``[0:count]`` per struct member label (``P->rho``) whose storage's count
    omp.member_counts proves, so that a callee's loop over ``P->n`` elements counts as a
    write of the whole member where the region maps it by the allocating call's count
    (``n`` of ``particles_create(n, ...)``)."""
    out = {}
    for label in tracked:
        path = MEMBER.fullmatch(label)
        count = path and model.cached(("omp.solver.storage_count", label),
                                      lambda path=path: agreed_count(model, *path.groups()))
        if count:
            out[label] = f"[0:{count}]"
    return out


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


def _element_section(model, nodes: list[Node]):
    """``[e:1]`` for a host write ``a[e] = ...`` whose index is the same wherever it is
    evaluated in the region (its variables are assigned nowhere in it), else None."""
    spans = [n.stmt.span for n in nodes if n.stmt is not None]

    def section_of(access) -> str | None:
        ref = access.ref
        if ref is None or len(ref.subscripts) != 1:
            return None
        try:
            index = poly(ref.subscripts[0].text)
        except NotPoly:
            return None
        names = {v for atom in atoms_of(index) for v in re.findall(r"[A-Za-z_]\w*", atom)}
        if assigns_any(model, nodes[0].function, names, spans):
            return None
        return f"[{render(index)}:1]"

    return section_of


def _element_here(access) -> str | None:
    """``[e:1]`` for a host access ``a[e]``, valid where it is evaluated (a pushed element of
    a statement that reads it too: its update goes right after the statement)."""
    ref = access.ref
    if ref is None or len(ref.subscripts) != 1:
        return None
    try:
        return f"[{render(poly(ref.subscripts[0].text))}:1]"
    except NotPoly:
        return None


def _changes_index(model: TranslationUnit, node: Node, section: str) -> bool:
    """Whether the statement ``node`` itself may change a variable of ``section`` (its
    mentions, ``VarUse``: ``a[i++] += 1`` pushes another element than it wrote)."""
    names = set(re.findall(r"[A-Za-z_]\w*", section))
    span = node.stmt.span
    return any(u.name in names and (u.role in VALUE_ROLES or u.role == "declare") and
               span.contains(u.span) for u in model.in_function("var_uses", node.function))


def entry_state(model: TranslationUnit, function, start: int, to_labels) -> State:
    """The state where the region begins: every array fresh on the host (and on the device
    for those copied in), pointers copied before the region pointing where their source
    does (``r = result`` before the region makes ``r`` an alias of ``result``)."""
    state = State({label: BOTH for label in to_labels})
    copies = [c for c in model.pointer_copies if c.function == function.name]
    made_by_calls = call_copies(model, function.name)
    if made_by_calls:                   # refine(&g) re-points g.val in the callee
        copies = sorted(copies + made_by_calls, key=lambda c: c.span.start)
    for copy in copies:
        if copy.span.start >= start:
            continue
        _keep_earlier_copies(state, copy.target)
        if copy.source is None or copy.offset:
            state.pts.pop(copy.target, None)
            continue
        state.pts[copy.target] = state.get_pts(copy.source)
    for name, labels in state.pts.items():
        state.valid[name] = BOTH if labels and labels <= set(to_labels) else frozenset("H")
    return state


def _keep_earlier_copies(state: State, target: str) -> None:
    """Before ``target`` is given a new value ahead of the region: pointers copied from it
    earlier (``v = g.val;`` then ``g = make(n)``, which writes ``g.val``) keep the storage
    it held, which is then no longer the storage ``target`` holds when the region starts
    (the label ``target`` names that one). They get a label of their own, the first of their
    names, so that a count, a clause or a handle of ``target`` is never taken for them."""
    if target not in state.get_pts(target):
        return
    holders = sorted(name for name, labels in state.pts.items()
                     if name != target and target in labels)
    for name in holders:
        state.pts[name] = (state.pts[name] - {target}) | {holders[0]}
