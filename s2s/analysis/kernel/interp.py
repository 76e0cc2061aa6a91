"""Symbolic execution of a kernel's IR: every global-memory access with its index and guard.

Why path-sensitive symbolic execution: kernels select indexes with ``?:`` and guards
(``(x > 0) ? c - 1 : c``, ``if (i < n)``, early ``return``), and each path gives an exact
piece of the access relation. A *state* is an environment (variable -> value) plus the
conjunction of affine constraints that hold on its path; ``if``, ``?:``, ``&&``, ``||``,
``min`` and C division fork states. Values are :class:`~s2s.analysis.affine.Poly` over thread
coordinates (``bx..bz``, ``tx..tz``), launch parameters (``gdx..gdz``, ``bdx..bdz``, integer
scalar parameters) and fresh existential variables:

* ``_tN`` loop counters. A loop is not iterated: an induction variable ``v += s`` (``s`` a
  launch parameter polynomial) is ``v0 + s*_tN`` with ``_tN >= 0``; the condition is required
  at ``_tN`` and at ``0``, which for a conjunction of affine constraints implies it at every
  iteration in between (convexity), so grid-stride loops and ``for (j = 0; j < n; j++)`` are
  exact. Other variables assigned in the body are unknown inside and after the loop.
* ``_qN`` quotients of division and modulo by a constant or launch parameter (C truncation:
  a sign fork unless the dividend is syntactically non-negative; ``>>`` and ``& (2^k-1)`` are
  floor operations and never fork).
* ``_dN`` data: values loaded from memory, float-to-int casts, unknown calls, and variables a
  loop changes in ways not modelled. Constraints over them are kept (exact projection), but
  an access whose index involves one is data-dependent.

Conditions that are not launch-affine are not recorded; states under them are ``may``.
``__device__`` functions are inlined (recursion is refused). Limits: unsigned wrap-around and
integer overflow are ignored; a block-scoped redeclaration shadowing an outer variable is not
undone at the end of the block; after a ``break``/``return`` inside a loop, the loop's accesses
are ``may`` (later iterations might not run).
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.affine import ONE, ZERO, Poly
from s2s.analysis.kernel.calls import call
from s2s.analysis.kernel.loops import assigned_names, escapes, induction_steps
from s2s.analysis.kernel.values import (
    LOCAL,
    UNKNOWN,
    AccessRecord,
    Constraint,
    Flow,
    Ptr,
    State,
    TooComplex,
)
from s2s.model import kernel_ir as ir

GRID_PARAMS = ("gdx", "gdy", "gdz", "bdx", "bdy", "bdz")
THREAD_DIMS = ("bx", "by", "bz", "tx", "ty", "tz")
BUILTIN_ATOMS = {"threadIdx": "t", "blockIdx": "b", "blockDim": "bd", "gridDim": "gd"}
NONNEG_ATOMS = frozenset(GRID_PARAMS + THREAD_DIMS)
COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
MIN_MAX = frozenset({"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax"})
MAX_STATES = 512


@dataclass
class Outcome:
    """What the interpretation found: accesses, fresh data variables and blocking issues."""

    records: list[AccessRecord]
    data_vars: set[str]
    issues: list[str]
    params: tuple[str, ...]


def interpret(kernel: ir.KernelBody, functions: dict[str, ir.KernelBody]) -> Outcome:
    """Run ``kernel`` symbolically; ``functions`` are the inlinable ``__device__`` bodies."""
    interp = Interpreter(kernel, functions)
    try:
        interp.run()
    except TooComplex:
        interp.issues.append(f"more than {MAX_STATES} paths through the kernel (not analysed)")
        interp.records = [AccessRecord(p.name, mode, None, (), True, None, None, "too complex")
                          for p in kernel.pointer_params
                          for mode in (("read",) if p.const else ("read", "write"))]
    return Outcome(interp.records, interp.data_vars, interp.issues, interp.params)


class Interpreter:
    def __init__(self, kernel: ir.KernelBody, functions: dict[str, ir.KernelBody]):
        self.kernel = kernel
        self.functions = functions
        scalars = tuple(p.name for p in kernel.params if p.kind == "int")
        self.params = GRID_PARAMS + scalars
        self.param_set = frozenset(self.params)
        self.records: list[AccessRecord] = []
        self.issues: list[str] = []
        self.data_vars: set[str] = set()
        self.nonneg: set[str] = set(NONNEG_ATOMS)
        self.arrays = {p.name for p in kernel.pointer_params}
        self.const_arrays = {p.name for p in kernel.pointer_params if p.const}
        self.stack: list[str] = [kernel.name]
        self._counter = 0

    # --- helpers ------------------------------------------------------------------------

    def fresh(self, kind: str) -> Poly:
        self._counter += 1
        name = f"_{kind}{self._counter}"
        if kind == "d":
            self.data_vars.add(name)
        if kind == "t":
            self.nonneg.add(name)
        return Poly.atom(name)

    def as_poly(self, value) -> Poly | None:
        if isinstance(value, Poly):
            return value
        if isinstance(value, Ptr):
            return None
        return self.fresh("d")

    def affine(self, poly: Poly) -> bool:
        return poly.launch_affine(self.param_set)

    def nonnegative(self, poly: Poly) -> bool:
        return all(c > 0 and all(a in self.nonneg for a in m) for m, c in poly.terms)

    def run(self) -> None:
        env = {}
        for param in self.kernel.params:
            env[param.name] = self.initial(param)
        flow = self.stmt(self.kernel.body, [State(env)])
        del flow

    def initial(self, param: ir.IrParam):
        if param.kind == "int":
            return Poly.atom(param.name)
        if param.kind == "pointer":
            return Ptr(param.name, ZERO)
        return UNKNOWN

    def check(self, states: list) -> list:
        if len(states) > MAX_STATES:
            raise TooComplex
        return states

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
            for out, value in self.eval(node.init, state):
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
            entry.may = entry.may or leaves or do_while
            runs = [entry] if do_while or cond is None else self.loop_condition(cond, entry, counter)
            inner = self.stmt(body, runs)
            flow.returned += inner.returned
            if step is not None:
                after = self.eval_all(step, inner.normal + inner.continued)
                del after
            exit_state = state.fork()
            for name in modified:
                if name in exit_state.env:
                    exit_state.env[name] = self.havoc(exit_state.env[name])
            flow.normal.append(exit_state)
        return flow

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

    # --- conditions ---------------------------------------------------------------------

    def branch(self, expr, state: State) -> tuple[list[State], list[State]]:
        """States where ``expr`` is true and where it is false."""
        if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
            yes, no = self.branch(expr.lhs, state)
            if expr.op == "&&":
                out_yes, out_no = [], list(no)
                for s in yes:
                    y2, n2 = self.branch(expr.rhs, s)
                    out_yes += y2
                    out_no += n2
                return out_yes, out_no
            out_yes, out_no = list(yes), []
            for s in no:
                y2, n2 = self.branch(expr.rhs, s)
                out_yes += y2
                out_no += n2
            return out_yes, out_no
        if isinstance(expr, ir.Unary) and expr.op == "!":
            yes, no = self.branch(expr.operand, state)
            return no, yes
        if isinstance(expr, ir.Cast):
            return self.branch(expr.operand, state)
        if isinstance(expr, ir.Binary) and expr.op in COMPARISONS:
            yes, no = [], []
            for s1, left in self.eval(expr.lhs, state):
                for s2, right in self.eval(expr.rhs, s1):
                    y, n = self.compare(expr.op, left, right, s2)
                    yes += y
                    no += n
            return yes, no
        yes, no = [], []
        for s, value in self.eval(expr, state):
            y, n = self.compare("!=", value, ZERO, s)
            yes += y
            no += n
        return yes, no

    def compare(self, op: str, left, right, state: State):
        lp = left if isinstance(left, Poly) else None
        rp = right if isinstance(right, Poly) else None
        if lp is None and not isinstance(left, Ptr):
            lp = self.fresh("d")
        if rp is None and not isinstance(right, Ptr):
            rp = self.fresh("d")
        if lp is None or rp is None or not self.affine(lp - rp):
            yes, no = state.fork(), state.fork()
            yes.may = no.may = True
            return [yes], [no]
        diff = lp - rp
        if op in (">", ">="):
            diff, op = -diff, {">": "<", ">=": "<="}[op]
        if op == "<":
            return self.split(state, [Constraint(-diff - ONE)], [[Constraint(diff)]])
        if op == "<=":
            return self.split(state, [Constraint(-diff)], [[Constraint(diff - ONE)]])
        equal = [Constraint(diff, eq=True)]
        unequal = [[Constraint(diff - ONE)], [Constraint(-diff - ONE)]]
        if op == "==":
            return self.split(state, equal, unequal)
        no, yes = self.split(state, equal, unequal)
        return yes, no

    def split(self, state: State, true_cons, false_alternatives):
        """Fork ``state``; constant constraints are decided here instead of forking."""
        yes = self.add(state, true_cons)
        no = [s for alt in false_alternatives for s in self.add(state, alt)]
        return yes, no

    def add(self, state: State, constraints) -> list[State]:
        kept = []
        for c in constraints:
            if c.poly.is_const:
                value = c.poly.const_value
                if (c.eq and value != 0) or (not c.eq and value < 0):
                    return []
                continue
            kept.append(c)
        return [state.constrain(*kept)]

    # --- expressions --------------------------------------------------------------------

    def eval_all(self, expr, states: list[State]) -> list[tuple[State, object]]:
        out = []
        for state in states:
            out += self.eval(expr, state)
        return self.check(out)

    def eval(self, expr, state: State) -> list[tuple[State, object]]:
        """Values of ``expr`` in ``state``: one (state, value) per path."""
        method = getattr(self, "eval_" + type(expr).__name__)
        return method(expr, state)

    def eval_IntConst(self, expr, state):
        return [(state, Poly.const(expr.value))]

    def eval_FloatConst(self, expr, state):
        return [(state, UNKNOWN)]

    def eval_Var(self, expr, state):
        if expr.name in state.env:
            return [(state, state.env[expr.name])]
        if expr.name in self.arrays:
            return [(state, Ptr(expr.name, ZERO))]
        if expr.global_array:      # a __constant__/__device__ table: no parameter's memory
            return [(state, Ptr(LOCAL, ZERO))]
        return [(state, UNKNOWN)]  # a global or template parameter: not followed

    def eval_Builtin(self, expr, state):
        if expr.var == "warpSize":
            return [(state, Poly.const(32))]
        prefix = BUILTIN_ATOMS.get(expr.var)
        if prefix is None or expr.component not in ("x", "y", "z"):
            return [(state, UNKNOWN)]
        return [(state, Poly.atom(prefix + expr.component))]

    def eval_Opaque(self, expr, state):
        states = [state]
        for child in expr.children:
            states = [s for s, _ in self.eval_all(child, states)]
        return [(s, UNKNOWN) for s in states]

    def eval_Cast(self, expr, state):
        out = []
        for s, value in self.eval(expr.operand, state):
            if expr.kind == "int":
                out.append((s, value if isinstance(value, Poly) else self.fresh("d")))
            elif expr.kind == "pointer":
                out.append((s, self.cast_pointer(value, expr.elem_size)))
            else:
                out.append((s, UNKNOWN))
        return out

    def cast_pointer(self, value, elem_size: int | None):
        if not isinstance(value, Ptr) or value.base in (None, LOCAL):
            return value if isinstance(value, Ptr) else Ptr(None, None)
        param = self.kernel.param(value.base)
        if elem_size is None or param is None or param.elem_size != elem_size:
            return Ptr(value.base, None)
        return value

    def eval_Cond(self, expr, state):
        yes, no = self.branch(expr.cond, state)
        out = self.eval_all(expr.then, yes) + self.eval_all(expr.other, no)
        if len(out) > 1 and all(v is out[0][1] or v == out[0][1] for _, v in out) and all(
                s.env == state.env for s, _ in out):
            return [(state, out[0][1])]  # both arms give the same value: the paths re-join
        return out

    def eval_Unary(self, expr, state):
        op = expr.op
        if op in ("pre++", "pre--", "post++", "post--"):
            delta = ONE if "++" in op else -ONE
            return self.update(expr.operand, state, lambda v, s: self.arith("+", v, delta, s),
                               post=op.startswith("post"))
        if op == "&":
            return [(s, self.address(lv)) for s, lv in self.lvalue(expr.operand, state)]
        if op == "*":
            return self.read(expr, state)
        if op == "!":
            yes, no = self.branch(expr.operand, state)
            return [(s, ZERO) for s in yes] + [(s, ONE) for s in no]
        out = []
        for s, value in self.eval(expr.operand, state):
            if not isinstance(value, Poly):
                out.append((s, UNKNOWN))
            elif op == "-":
                out.append((s, -value))
            elif op == "~":
                out.append((s, -value - ONE))
            else:
                out.append((s, value))
        return out

    def eval_Binary(self, expr, state):
        if expr.op in COMPARISONS or expr.op in ("&&", "||"):
            yes, no = self.branch(expr, state)
            return [(s, ONE) for s in yes] + [(s, ZERO) for s in no]
        if expr.op == ",":
            states = [s for s, _ in self.eval(expr.lhs, state)]
            return self.eval_all(expr.rhs, states)
        out = []
        for s1, left in self.eval(expr.lhs, state):
            for s2, right in self.eval(expr.rhs, s1):
                out += self.arith(expr.op, left, right, s2)
        return out

    def eval_Assign(self, expr, state):
        if expr.op == "=":
            out = []
            for s, value in self.eval(expr.value, state):
                out += self.store(expr.target, s, value)
            return out
        op = expr.op[:-1]
        out = []
        for s, value in self.eval(expr.value, state):
            out += self.update(expr.target, s, lambda old, st, v=value: self.arith(op, old, v, st))
        return out

    def eval_Index(self, expr, state):
        return self.read(expr, state)

    def eval_Member(self, expr, state):
        if expr.arrow or isinstance(expr.base, (ir.Index, ir.Unary)):
            return self.read(expr, state)
        return [(s, UNKNOWN) for s, _ in self.eval(expr.base, state)]

    def eval_Call(self, expr, state):
        return call(self, expr, state)

    # --- arithmetic ---------------------------------------------------------------------

    def arith(self, op: str, left, right, state: State) -> list[tuple[State, object]]:
        if isinstance(left, Ptr) or isinstance(right, Ptr):
            return [(state, self.pointer_arith(op, left, right))]
        if not isinstance(left, Poly) or not isinstance(right, Poly):
            return [(state, UNKNOWN)]
        if op == "+":
            return [(state, left + right)]
        if op == "-":
            return [(state, left - right)]
        if op == "*":
            return [(state, left * right)]
        if op in ("/", "%"):
            return self.divide(op, left, right, state)
        if op in ("<<", ">>") and right.is_const and 0 <= right.const_value < 62:
            factor = Poly.const(1 << right.const_value)
            if op == "<<":
                return [(state, left * factor)]
            return self.floor_div(left, factor, state, want="q")
        if op == "&" and right.is_const and right.const_value > 0 and (
                right.const_value & (right.const_value + 1)) == 0:
            return self.floor_div(left, Poly.const(right.const_value + 1), state, want="r")
        return [(state, self.fresh("d"))]

    def pointer_arith(self, op: str, left, right):
        if isinstance(left, Ptr) and isinstance(right, Poly) and op in ("+", "-"):
            if left.offset is None:
                return left
            return Ptr(left.base, left.offset + (right if op == "+" else -right))
        if isinstance(right, Ptr) and isinstance(left, Poly) and op == "+":
            return Ptr(right.base, None if right.offset is None else right.offset + left)
        return UNKNOWN

    def divisor(self, poly: Poly) -> bool:
        return (poly.is_const and poly.const_value != 0) or (
            poly.is_param_only(self.param_set) and len(poly.terms) == 1 and poly.terms[0][1] > 0)

    def divide(self, op: str, left: Poly, right: Poly, state: State):
        """C ``/`` and ``%`` (truncating) by a constant or a positive launch parameter."""
        if not self.divisor(right) or not self.affine(left):
            return [(state, self.fresh("d"))]
        sign = -1 if right.is_const and right.const_value < 0 else 1
        divisor = right.scale(sign)
        want = "q" if op == "/" else "r"
        if self.nonnegative(left):
            results = self.floor_div(left, divisor, state, want)
        else:
            results = []
            for s in self.add(state, [Constraint(left)]):
                results += self.floor_div(left, divisor, s, want)
            for s in self.add(state, [Constraint(-left - ONE)]):
                neg = self.floor_div(-left, divisor, s, want)
                results += [(st, -value) for st, value in neg]
        if op == "/" and sign < 0:
            results = [(s, -value) for s, value in results]
        return results

    def floor_div(self, left: Poly, divisor: Poly, state: State, want: str):
        """``floor(left / divisor)`` (``q``) or ``left - divisor*floor(...)`` (``r``)."""
        if not self.affine(left):
            return [(state, self.fresh("d"))]
        quotient = self.fresh("q")
        if self.nonnegative(left):
            self.nonneg.add(next(iter(quotient.atoms())))
        product = divisor * quotient
        cons = [Constraint(left - product), Constraint(product + divisor - ONE - left)]
        if not divisor.is_const:
            cons.append(Constraint(divisor - ONE))
        result = quotient if want == "q" else left - product
        return [(s, result) for s in self.add(state, cons)]

    # --- memory ---------------------------------------------------------------------------

    def lvalue(self, expr, state: State) -> list[tuple[State, tuple]]:
        """``('var', name)``, ``('mem', Ptr, span, partial)`` or ``('none',)``."""
        if isinstance(expr, ir.Var):
            return [(state, ("var", expr.name))]
        if isinstance(expr, ir.Index):
            out = []
            bases = (self.eval(expr.base, state) if not isinstance(expr.base, ir.Index)
                     else self.row(expr.base, state))
            for s1, base in bases:
                for s2, index in self.eval(expr.index, s1):
                    out.append((s2, ("mem", self.offset(base, index), expr.span, False)))
            return out
        if isinstance(expr, ir.Unary) and expr.op == "*":
            return [(s, ("mem", self.offset(p, ZERO), None, False))
                    for s, p in self.eval(expr.operand, state)]
        if isinstance(expr, ir.Member):
            if expr.arrow:
                return [(s, ("mem", self.offset(p, ZERO), None, True))
                        for s, p in self.eval(expr.base, state)]
            out = []
            for s, inner in self.lvalue(expr.base, state):
                out.append((s, inner[:3] + (True,) if inner[0] == "mem" else ("none",)))
            return out
        if isinstance(expr, ir.Cast):
            return self.lvalue(expr.operand, state)
        return [(s, ("none",)) for s, _ in self.eval(expr, state)]

    def row(self, expr: ir.Index, state: State):
        """``a[i]`` used as the base of ``a[i][j]``: a row of a multi-dimensional array. Local
        and shared arrays stay local; a parameter's element offset is not followed."""
        out = []
        for s, lv in self.lvalue(expr, state):
            ptr = lv[1] if lv[0] == "mem" else Ptr(None, None)
            out.append((s, ptr if ptr.base in (LOCAL, None) else Ptr(ptr.base, None)))
        return out

    def offset(self, base, index) -> Ptr:
        """The element ``base[index]``; an index loaded from memory is a fresh data value."""
        if not isinstance(base, Ptr):
            return Ptr(None, None)
        if not isinstance(index, (Poly, Ptr)):
            index = self.fresh("d")
        if base.offset is None or not isinstance(index, Poly):
            return Ptr(base.base, None)
        return Ptr(base.base, base.offset + index)

    def address(self, lv: tuple):
        if lv[0] == "mem":
            return lv[1]
        return Ptr(LOCAL, ZERO)

    def read(self, expr, state: State):
        out = []
        for s, lv in self.lvalue(expr, state):
            out.append((s, self.load(lv, s)))
        return out

    def load(self, lv: tuple, state: State):
        if lv[0] == "var":
            return state.env.get(lv[1], UNKNOWN)
        if lv[0] == "mem":
            self.record(state, lv[1], "read", lv[2])
        return UNKNOWN

    def store(self, target, state: State, value) -> list[tuple[State, object]]:
        out = []
        for s, lv in self.lvalue(target, state):
            if lv[0] == "var":
                old = s.env.get(lv[1])
                kind = "pointer" if isinstance(old, Ptr) else "int" if isinstance(old, Poly) else "other"
                s.env[lv[1]] = self.convert(kind, value) if old is not None else value
            elif lv[0] == "mem":
                if lv[3]:
                    self.record(s, lv[1], "read", lv[2])
                self.record(s, lv[1], "write", lv[2])
            out.append((s, value))
        return out

    def update(self, target, state: State, compute, post: bool = False):
        """Read-modify-write of ``target`` (compound assignment, ``++``/``--``)."""
        out = []
        for s, lv in self.lvalue(target, state):
            old = self.load(lv, s)
            for s2, new in compute(old, s):
                if lv[0] == "var":
                    s2.env[lv[1]] = new if not isinstance(old, Poly) else self.convert("int", new)
                elif lv[0] == "mem":
                    self.record(s2, lv[1], "write", lv[2])
                out.append((s2, old if post else new))
        return out

    def record(self, state: State, ptr: Ptr, mode: str, span, atomic: str | None = None,
               why: str | None = None) -> None:
        if ptr.base == LOCAL:
            return
        if ptr.base is None:
            if mode == "write":
                where = f" (line {span.line})" if span is not None else ""
                self.issues.append(f"writes through a pointer of unknown target{where}")
            else:
                for name in sorted(self.arrays):
                    self.records.append(AccessRecord(name, "read", None, (), True, span,
                                                     None, "read through an unknown pointer"))
            return
        index = ptr.offset
        if index is not None and not self.affine(index):
            why = why or f"index {index.to_text()} is not affine"
            index = None
        elif index is None:
            why = why or "offset not followed"
        self.records.append(AccessRecord(ptr.base, mode, index, state.cons, state.may, span,
                                         atomic, why))
