"""Memory of the access interpreter: lvalues, pointers into parameters and locals, loads,
stores and the access records they leave (mixed into
:class:`s2s.analysis.kernel.interp.Interpreter`).

Every load or store through a pointer is recorded (:class:`AccessRecord`) with its index
polynomial (none, with the reason, when it is not affine or the offset was not followed), the
constraints of its state (the guard) and its atomic operation; a write through a pointer of
unknown target is an issue. Variables live in the state's environment; local and shared arrays
are not recorded.
"""

from __future__ import annotations

from s2s.analysis.affine import ZERO, Poly
from s2s.analysis.kernel.values import LOCAL, UNKNOWN, AccessRecord, Ptr, State
from s2s.model import kernel_ir as ir


class MemoryRules:
    """The memory rules of the interpreter; ``self`` is the Interpreter."""

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
