"""Subscripts bounded through divisions, remainders and the ``if`` that guards them.

Kernels written as work items (su3_bench: ``for (id = 0; id < sites * 36; id++) { int i =
id / 36; if (i < sites) { int j = (id % 36) / 9; ... a[i] ... b[j] } }``, one thread per
element carried over from CUDA) index through values a polynomial does not hold: ``id / 36``
grows with ``id`` but its last value is no polynomial of the loop's bound, and ``(id % 36) /
9`` stays in 0..3 whatever ``id`` is. The loop bounds alone (omp.loops.write_extent) leave
such a subscript unbounded, and the safety net left the construct unmapped.

:func:`guarded_extent` bounds the subscript by intervals whose ends are polynomials. Each
name in it is

* a counter of a counting loop around the access: its first to its last value (themselves
  bounded the same way, so an inner loop's bounds may use outer counters);
* an index local of the kernel (omp.index_locals: declared once, never written again): the
  interval of its definition;
* any other variable the kernel neither declares nor writes: itself.

``+``, ``-``, ``*`` by a constant or by a product of variables (a stride, taken to be not
negative as everywhere in the safety net) follow from the operands' ends; ``/`` and ``%`` need a
positive constant divisor: C's division truncates toward zero, which keeps order, so constant
ends divide; ``x % c`` lies in 0..c-1 when ``x`` is not negative, in -(c-1)..c-1 otherwise.
An end that is not a constant before a division is unknown, and there the guard comes in: an
``if`` around the access whose condition says ``i < B`` or ``i <= B``, alone or through
``&&`` (``VarUse.guard``, from the AST), bounds ``i`` by ``B`` inside its then-branch, where
``i`` is an index local (not written after its declaration) or the counter of a loop the
``if`` is inside, and no variable of ``B`` is declared or written in the kernel. Only upper
bounds come from guards: C compares after the usual conversions, and with an unsigned side
``i >= L`` holds for a negative ``i`` too, while ``i < B`` is false for it.

Any name or operator outside these rules makes the subscript unbounded (None), as before.
"""

from __future__ import annotations

import ast
import re

from s2s.analysis.omp.index_locals import index_locals, mentions_inside
from s2s.analysis.omp.loops import LOOP_KINDS, loop_range
from s2s.analysis.polynomial import Poly, add, mul, render, scale
from s2s.model import Stmt
from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES

#: mention roles that change a variable, and those that declare one (host_facts.VarUse)
#: what an integer value rendered from the AST (frontend.host.integral) or a loop bound holds
_SAFE = re.compile(r"^[\w\s+\-*/%()]*$")
_DEPTH = 12  # definitions and loop bounds followed at most this deep
_UNKNOWN = (None, None)


def guarded_extent(kernel: Stmt, ref, uses: tuple) -> str | None:
    """``[lo:len]`` holding every element the one-subscript access ``ref`` may touch in
    ``kernel`` (module doc), or None. ``uses``: the function's variable mentions."""
    if len(ref.subscripts) != 1 or not uses:
        return None
    inside = mentions_inside(uses, kernel.span)
    counters = {}
    for loop in kernel.walk():
        if loop.kind not in LOOP_KINDS or not loop.span.start <= ref.span.start < loop.span.end:
            continue
        found = loop_range(loop)
        if found is None or loop.body is None:
            return None
        counters[found[0]] = (found[1], found[2], loop)
    bounds = _Bounds(kernel, ref, inside, counters, index_locals(kernel, uses))
    low, high = bounds.of(ref.subscripts[0].text, 0)
    if low is None or high is None:
        return None
    return f"[{render(low)}:{render(add(add(high, scale(low, -1)), {(): 1}))}]"


class _Bounds:
    """The interval of an integer expression at the access ``ref`` (module doc)."""

    def __init__(self, kernel: Stmt, ref, inside: list, counters: dict,
                 definitions: dict[str, str]):
        self.ref = ref
        self.counters = counters
        self.definitions = definitions
        self.declared = frozenset(u.name for u in inside if u.role in DECLARING_ROLES)
        self.changes = [u for u in inside if u.role in CHANGING_ROLES]
        declarations: dict[str, set] = {}
        for use in inside:
            declarations.setdefault(use.name, set()).add(use.decl)
        #: names that stand for one variable throughout the kernel (no shadowing): a guard
        #: on an outer ``i`` says nothing of an ``i`` declared inside its branch
        self.single = frozenset(name for name, decls in declarations.items() if len(decls) == 1)
        self.kernel = kernel
        self.guarding = [u for u in inside if u.guard is not None and u.role == "read" and
                         u.guard[0] in ("<", "<=")]
        self._guards: list | None = None

    def guards(self) -> list:
        """(``if`` statement, guarding mention in its condition) around the access: asked
        only where a bound is missing, once."""
        if self._guards is None:
            start = self.ref.span.start
            self._guards = [] if not self.guarding else [
                (stmt, u) for stmt in self.kernel.walk()
                if stmt.kind == "if" and stmt.cond is not None and stmt.body is not None and
                stmt.body.span.start <= start < stmt.body.span.end
                for u in self.guarding
                if stmt.cond.span.start <= u.span.start < stmt.cond.span.end]
        return self._guards

    def of(self, expression: str, depth: int) -> tuple[Poly | None, Poly | None]:
        """(least, greatest) value of ``expression``; an end is None where not known."""
        if depth > _DEPTH or not _SAFE.match(expression):
            return _UNKNOWN
        try:
            tree = ast.parse(expression.strip(), mode="eval").body
        except SyntaxError:
            return _UNKNOWN
        return self._node(tree, depth)

    def _node(self, node, depth: int) -> tuple[Poly | None, Poly | None]:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            point = {(): node.value} if node.value else {}
            return point, point
        if isinstance(node, ast.Name):
            return self._name(node.id, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            low, high = self._node(node.operand, depth)
            return (low, high) if isinstance(node.op, ast.UAdd) else (_neg(high), _neg(low))
        if not isinstance(node, ast.BinOp):
            return _UNKNOWN
        left, right = self._node(node.left, depth), self._node(node.right, depth)
        if isinstance(node.op, ast.Add):
            return _sum(left[0], right[0]), _sum(left[1], right[1])
        if isinstance(node.op, ast.Sub):
            return _sum(left[0], _neg(right[1])), _sum(left[1], _neg(right[0]))
        if isinstance(node.op, ast.Mult):
            return _product(left, right)
        divisor = _constant(right[0]) if right[0] == right[1] else None
        if divisor is None or divisor <= 0:
            return _UNKNOWN
        if isinstance(node.op, ast.Div):
            low, high = _constant(left[0]), _constant(left[1])
            return (None if low is None else _point(_truncated(low, divisor)),
                    None if high is None else _point(_truncated(high, divisor)))
        if isinstance(node.op, ast.Mod):
            low, high = _constant(left[0]), _constant(left[1])
            if low is None or low < 0:
                return _point(1 - divisor), _point(divisor - 1)
            return _point(0), _point(divisor - 1 if high is None else min(high, divisor - 1))
        return _UNKNOWN

    def _name(self, name: str, depth: int) -> tuple[Poly | None, Poly | None]:
        if name in self.counters:
            first, last, loop = self.counters[name]
            if any(u.name == name and loop.body.span.start <= u.span.start < loop.body.span.end
                   for u in self.changes):
                return _UNKNOWN
            low = self.of(render(first), depth + 1)[0]
            high = self.of(render(last), depth + 1)[1]
            return low, self._guarded(name, high, loop.body.span, depth)
        if name in self.definitions:
            low, high = self.of(self.definitions[name], depth + 1)
            return low, self._guarded(name, high, None, depth)
        if name in self.declared or any(u.name == name for u in self.changes):
            return _UNKNOWN
        return _point_of(name), _point_of(name)

    def _guarded(self, name: str, high: Poly | None, within, depth: int) -> Poly | None:
        """``high``, or the bound of a guard on ``name`` around the access (inside
        ``within``, the counter's loop body, when given) where ``high`` is not a constant."""
        if _constant(high) is not None or name not in self.single:
            return high
        for stmt, use in self.guards():
            if use.name != name or \
                    within is not None and not within.start <= stmt.span.start < within.end:
                continue
            op, bound = use.guard
            value = self.of(bound, depth + 1)
            if value[0] is None or value[0] != value[1] or \
                    any(atom in self.counters for key in value[1] for atom in key):
                continue
            return add(value[1], {(): -1}) if op == "<" else value[1]
        return high


def _point(value: int) -> Poly:
    return {(): value} if value else {}


def _point_of(name: str) -> Poly:
    return {(name,): 1}


def _constant(p: Poly | None) -> int | None:
    if p is None or any(key for key in p):
        return None
    return p.get((), 0)


def _neg(p: Poly | None) -> Poly | None:
    return None if p is None else scale(p, -1)


def _sum(a: Poly | None, b: Poly | None) -> Poly | None:
    return None if a is None or b is None else add(a, b)


def _product(left: tuple, right: tuple) -> tuple[Poly | None, Poly | None]:
    """Ends of a product where one side is a constant (the other scaled, swapped when the
    constant is negative) or both are one value each."""
    for factor, other in ((left, right), (right, left)):
        k = _constant(factor[0]) if factor[0] == factor[1] else None
        if k is not None:
            low, high = (scale(e, k) if e is not None else None for e in other)
            return (low, high) if k >= 0 else (high, low)
    if left[0] is not None and left[0] == left[1] and right[0] is not None and \
            right[0] == right[1]:
        point = mul(left[0], right[0])
        return point, point
    for factor, other in ((left, right), (right, left)):
        if factor[0] is not None and factor[0] == factor[1] and \
                all(value > 0 for value in factor[0].values()) and None not in other:
            # a row stride (``jj * x``): not negative, as extents and strides are taken to
            # be everywhere in the safety net (omp.fallback._nonnegative_hull)
            return mul(other[0], factor[0]), mul(other[1], factor[0])
    return _UNKNOWN


def _truncated(value: int, divisor: int) -> int:
    """C's ``value / divisor`` (toward zero) for a positive divisor."""
    return value // divisor if value >= 0 else -((-value) // divisor)
