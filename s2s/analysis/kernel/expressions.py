"""Expressions of a kernel body for the access interpreter: values, conditions that fork
states (``if``, ``?:``, ``&&``, ``||``, comparisons), arithmetic, and C division and modulo by
a constant or launch parameter (mixed into :class:`s2s.analysis.kernel.interp.Interpreter`).

An expression evaluates to a list of (state, value) pairs: each fork of a condition or of a
division's sign is a state of its own, with the affine constraints that hold on it.
"""

from __future__ import annotations

from s2s.analysis.affine import ONE, ZERO, Poly
from s2s.analysis.kernel.calls import call
from s2s.analysis.kernel.values import LOCAL, UNKNOWN, Constraint, Ptr, State
from s2s.model import kernel_ir as ir

BUILTIN_ATOMS = {"threadIdx": "t", "blockIdx": "b", "blockDim": "bd", "gridDim": "gd"}
COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


class ExpressionRules:
    """The expression rules of the interpreter; ``self`` is the Interpreter."""

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
            results = self.eval(expr.value, state)
            if isinstance(expr.target, ir.Var):
                results = self.joined(expr.target.name, state, results)
            for s, value in results:
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
