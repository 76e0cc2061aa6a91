"""Statements of a kernel body for the access interpreter: blocks, declarations, ``if``,
``return``/``break``/``continue`` and loops (mixed into
:class:`s2s.analysis.kernel.interp.Interpreter`).

A loop is run once at a symbolic iteration: induction variables with a loop-invariant step
become ``v0 + s*_tN`` (``_tN >= 0``), the condition is required at ``_tN`` and at ``0``, and the
other variables the body assigns are unknown inside and after it (see the interpreter's
docstring for why this is exact for grid-stride loops).
"""

from __future__ import annotations

from s2s.analysis.affine import ONE, ZERO, Poly
from s2s.analysis.kernel.last_iteration import has_return, last_iteration_exits
from s2s.analysis.kernel.loops import assigned_names, escapes, induction_steps, used_names
from s2s.analysis.kernel.values import LOCAL, UNKNOWN, Constraint, Flow, Ptr, State
from s2s.model import kernel_ir as ir

#: the most states a loop that breaks in its last iteration may leave with per state entering
#: it (the body's paths of that iteration); beyond, the loop falls back to forgetting what its
#: body assigns (one state), so the rule never makes a kernel too complex to analyse
MAX_EXITS = 64


def _bound_changes(cond, modified: set[str]) -> bool:
    """Whether the loop's body assigns a variable its condition reads besides the counter
    (``k < n`` with ``n`` changed in the body: no trip count from the entry values)."""
    if not isinstance(cond, ir.Binary) or not isinstance(cond.lhs, ir.Var):
        return True
    return bool(used_names(cond.rhs) & modified)


class StatementRules:
    """The statement rules of the interpreter; ``self`` is the Interpreter."""

    # --- statements ---------------------------------------------------------------------

    def stmt(self, node, states: list[State]) -> Flow:
        flow = Flow()
        if not states:
            return flow
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            flow.normal = [s for s, _ in self.eval_all(node, states)]
            return flow
        return method(node, states)

    def stmt_Block(self, node: ir.Block, states):
        flow = Flow(normal=states)
        for child in node.stmts:
            inner = self.stmt(child, flow.normal)
            flow.absorb(inner)
            flow.normal = self.check(inner.normal)
        return flow

    def stmt_Decl(self, node: ir.Decl, states):
        flow = Flow()
        for state in states:
            if node.kind == "array":
                state.env[node.name] = Ptr(LOCAL, ZERO)
                flow.normal.append(state)
                continue
            if node.init is None:
                state.env[node.name] = self.fresh("d") if node.kind == "int" else UNKNOWN
                flow.normal.append(state)
                continue
            results = self.joined(node.name, state, self.eval(node.init, state))
            for out, value in results:
                out.env[node.name] = self.convert(node.kind, value)
                flow.normal.append(out)
        return flow

    def convert(self, kind: str, value):
        if kind == "int":
            return self.as_poly(value) if not isinstance(value, Ptr) else self.fresh("d")
        if kind == "pointer":
            return value if isinstance(value, Ptr) else Ptr(None, None)
        return UNKNOWN if not isinstance(value, Ptr) else value

    def stmt_ExprStmt(self, node: ir.ExprStmt, states):
        return Flow(normal=[s for s, _ in self.eval_all(node.expr, states)])

    def stmt_OpaqueStmt(self, node: ir.OpaqueStmt, states):
        flow = Flow()
        for state in states:
            state.may = True
        current = states
        for child in node.children:
            if isinstance(child, (ir.Block, ir.If, ir.For, ir.While, ir.Decl, ir.ExprStmt,
                                  ir.Return, ir.Break, ir.Continue, ir.OpaqueStmt)):
                inner = self.stmt(child, current)
                flow.absorb(inner)
                current = inner.normal
            else:
                current = [s for s, _ in self.eval_all(child, current)]
        flow.normal = current
        return flow

    def stmt_If(self, node: ir.If, states):
        flow = Flow()
        for state in states:
            yes, no = self.branch(node.cond, state)
            branch_flow = Flow()
            then = self.stmt(node.then, yes)
            branch_flow.absorb(then)
            normal = then.normal
            if node.other is not None:
                other = self.stmt(node.other, no)
                branch_flow.absorb(other)
                normal = normal + other.normal
            else:
                normal = normal + no
            flow.absorb(branch_flow)
            flow.normal += self.join(state, normal, branch_flow)
        flow.normal = self.check(flow.normal)
        return flow

    def join(self, before: State, after: list[State], escaped: Flow) -> list[State]:
        """Merge the paths of an ``if`` back into ``before`` when that is exact: no path left
        early and none changed a variable visible after the statement. Otherwise conditions
        that steer no access would multiply paths (``if (lane == 0) scratch[w] = v;``)."""
        if escaped.returned or escaped.broke or escaped.continued or len(after) < 2:
            return after
        keys = before.env.keys()
        for state in after:
            if any(state.env.get(k) is not v and state.env.get(k) != v
                   for k, v in before.env.items()):
                return after
        for state in after:
            for extra in [k for k in state.env if k not in keys]:
                del state.env[extra]
        return [before]

    def stmt_Return(self, node: ir.Return, states):
        flow = Flow()
        for state in states:
            if node.value is None:
                flow.returned.append((state, UNKNOWN))
            else:
                flow.returned += self.eval(node.value, state)
        return flow

    def stmt_Break(self, node, states):
        return Flow(broke=list(states))

    def stmt_Continue(self, node, states):
        return Flow(continued=list(states))

    def stmt_For(self, node: ir.For, states):
        if node.init is not None:
            init = self.stmt(node.init, states)
            states = init.normal
        return self.loop(node.cond, node.body, node.step, states, do_while=False)

    def stmt_While(self, node: ir.While, states):
        return self.loop(node.cond, node.body, None, states, do_while=node.do_while)

    def loop(self, cond, body, step, states: list[State], do_while: bool) -> Flow:
        """One symbolic iteration at a fresh counter ``_t >= 0`` (see the module docstring)."""
        modified = assigned_names(body) | assigned_names(step)
        steps = induction_steps(body, step, modified)
        leaves = escapes(body)
        countable = not do_while and not _bound_changes(cond, modified)
        flow = Flow()
        for state in states:
            entry = state.fork()
            counter = self.fresh("t")
            entry.cons += (Constraint(counter),)
            first: dict[str, object] = {}
            for name in modified:
                if name not in entry.env:
                    continue
                old = entry.env[name]
                delta = self.step_value(steps.get(name), state)
                if delta is not None and isinstance(old, Poly):
                    entry.env[name] = old + delta * counter
                    first[name] = old
                elif delta is not None and isinstance(old, Ptr) and old.offset is not None:
                    entry.env[name] = Ptr(old.base, old.offset + delta * counter)
                else:
                    entry.env[name] = self.havoc(old)
            trips = self.trip_count(cond, steps, first, state) if countable else None
            if leaves and trips is not None and not has_return(body):
                exits = self.breaking_loop(cond, body, step, entry, state, trips, counter)
                if exits is not None:
                    flow.normal += exits
                    continue
            entry.may = entry.may or leaves or do_while
            inner, _ = self.iteration(cond, body, step, entry, counter, do_while)
            flow.returned += inner.returned
            if trips is not None and not leaves:
                flow.normal += self.counted_exits(state, trips, steps, first, modified)
                continue
            exit_state = state.fork()
            for name in modified:
                if name in exit_state.env:
                    exit_state.env[name] = self.havoc(exit_state.env[name])
            flow.normal.append(exit_state)
        return flow

    def iteration(self, cond, body, step, entry: State, counter: Poly, do_while: bool):
        """The body run at the symbolic iteration: its flow and the states past the step."""
        entry = entry.fork()
        runs = [entry] if do_while or cond is None else self.loop_condition(cond, entry, counter)
        inner = self.stmt(body, runs)
        ends = inner.normal + inner.continued
        if step is not None:
            ends = [s for s, _ in self.eval_all(step, ends)]
        return inner, ends

    def breaking_loop(self, cond, body, step, entry: State, before: State, trips: Poly,
                      counter: Poly) -> list[State] | None:
        """A counted loop with ``break``: tried as one that breaks only in its last iteration
        (:mod:`~s2s.analysis.kernel.last_iteration`), its accesses exact; when a break does not
        pin the last iteration, the records of the try are taken back (None)."""
        records, issues = len(self.records), len(self.issues)
        inner, ends = self.iteration(cond, body, step, entry, counter, False)
        exits = last_iteration_exits(before, trips, counter, ends, inner.broke)
        if exits is None or len(exits) > MAX_EXITS:     # (more paths than the old rule's one
            del self.records[records:], self.issues[issues:]    # could pass the path limit)
            return None
        return exits

    def trip_count(self, cond, steps: dict, first: dict, state: State) -> Poly | None:
        """The iterations of a counted loop, ``for (k = a; k < b; ++k)`` (``<=``: one more)
        with ``b`` a launch-parameter polynomial, as ``b - a`` (which may be <= 0: no
        iteration); None for any other loop."""
        if not isinstance(cond, ir.Binary) or cond.op not in ("<", "<=") or \
                not isinstance(cond.lhs, ir.Var) or cond.lhs.name not in first:
            return None
        if self.step_value(steps.get(cond.lhs.name), state) != ONE:
            return None
        bound = self.step_value(cond.rhs, state)     # a launch-parameter polynomial, or None
        if bound is None:
            return None
        return bound - first[cond.lhs.name] + (ONE if cond.op == "<=" else ZERO)

    def counted_exits(self, state: State, trips: Poly, steps: dict, first: dict,
                      modified: set[str]) -> list[State]:
        """The states after a counted loop: each induction variable at ``v0 + step * trips``
        when it ran (``trips >= 1``: a plane offset ``c += nx * ny`` after ``nz - 2``
        iterations is ``c0 + nx * ny * (nz - 2)``), as before it when it did not; the other
        variables the body assigns are unknown."""
        exits = []
        for ran in (True, False):
            if trips.is_const and (trips.const_value >= 1) != ran:
                continue
            out = state.fork()
            if not trips.is_const:
                out.cons += (Constraint(trips - ONE if ran else -trips),)
            for name in modified:
                if name not in out.env:
                    continue
                delta = self.step_value(steps.get(name), state)
                if not ran:
                    continue
                if delta is not None and name in first:
                    out.env[name] = first[name] + delta * trips
                else:
                    out.env[name] = self.havoc(out.env[name])
            exits.append(out)
        return exits

    def loop_condition(self, cond, entry: State, counter: Poly) -> list[State]:
        """States in which iteration ``_t`` runs: the condition at ``_t`` and at ``_t = 0``."""
        name = next(iter(counter.atoms()))
        yes, _ = self.branch(cond, entry)
        out = []
        for state in yes:
            added = state.cons[len(entry.cons):]
            at_zero = tuple(Constraint(c.poly.substitute(name, ZERO), c.eq) for c in added)
            state.cons = state.cons + at_zero
            out.append(state)
        return out

    def step_value(self, expr, state: State) -> Poly | None:
        """A loop step as a launch-parameter polynomial (None: not an induction step)."""
        if expr is None:
            return None
        if isinstance(expr, Poly):
            return expr
        results = self.eval(expr, state.fork())
        if len(results) != 1:
            return None
        value = results[0][1]
        if isinstance(value, Poly) and value.is_param_only(self.param_set):
            return value
        return None

    def havoc(self, value):
        if isinstance(value, Poly):
            return self.fresh("d")
        if isinstance(value, Ptr):
            return Ptr(value.base, None)
        return UNKNOWN
