"""Index polynomials of kernel source variables, for recomputation fusion.

Recomputing a producer's element inside a consumer needs the consumer's subscript in the
consumer's *own* variables (``B[j * n + i]`` in terms of the loop counter ``j`` and the local
``i``), so that the producer's coordinates can be written as expressions valid at that site,
and the facts that hold there (enclosing guards, loop bounds) to prove the solution unique.
The access interpreter works on thread atoms and fresh loop atoms, which cannot be printed
back as source; this module walks the IR once more and keeps source names:

* a straight-line local (an ``int`` declared once with an affine initialiser and never
  assigned) is the atom ``s2sv_<name>``, with its value in thread atoms on the side;
* the counter of an enclosing ``for`` (``int j = lo; j < hi; ++j``, ``j`` not assigned in the
  body) is the existential atom ``s2sl_<name>`` with ``lo <= j`` and the loop condition;
* guards of enclosing ``if``s (and ``if (c) return;`` before the site) are constraints.

Conditions that are not affine comparisons are dropped, which only weakens the facts: a check
built on them can fail, never wrongly pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.affine import ONE, Poly
from s2s.analysis.kernel.loops import assigned_names, walk
from s2s.model import kernel_ir as ir

LOCAL, LOOP = "s2sv_", "s2sl_"
BUILTIN = {("blockIdx", c): "b" + c for c in "xyz"} | {("threadIdx", c): "t" + c for c in "xyz"}
BUILTIN |= {("blockDim", c): "bd" + c for c in "xyz"} | {("gridDim", c): "gd" + c for c in "xyz"}
BUILTIN_TEXT = {atom: f"{var}.{c}" for (var, c), atom in BUILTIN.items()}
THREAD_ATOMS = ("bx", "by", "bz", "tx", "ty", "tz")


@dataclass(frozen=True)
class SiteFacts:
    """What holds at one subscript: its index in source atoms, the constraints (each
    ``poly >= 0``) in source atoms, and the thread-atom value of each straight-line local."""

    index: Poly
    constraints: tuple[Poly, ...]
    locals: dict
    loops: tuple[str, ...]

    def in_threads(self, poly: Poly) -> Poly:
        """``poly`` with straight-line locals replaced by their values (loop atoms stay)."""
        for name, value in self.locals.items():
            if LOCAL + name in poly.atoms():
                poly = poly.substitute(LOCAL + name, value)
        return poly


def straight_locals(body: ir.KernelBody) -> dict[str, Poly]:
    """Top-level ``int`` locals with an affine initialiser, never assigned: name -> value in
    thread atoms and parameters."""
    assigned = assigned_names(body.body)
    params = {p.name for p in body.params if p.kind == "int"}
    values: dict[str, Poly] = {}
    for stmt in body.body.stmts:
        if isinstance(stmt, ir.Decl) and stmt.kind == "int" and stmt.init is not None \
                and stmt.name not in assigned:
            value = poly_of(stmt.init, params, dict(values))
            if value is not None:
                values[stmt.name] = value
    return values


def poly_of(expr, params: set[str], env: dict, loops: frozenset = frozenset()) -> Poly | None:
    """The integer value of ``expr``: parameters are atoms, locals in ``env`` their value
    (or ``LOCAL + name`` when the value is None), loop counters ``LOOP + name``."""
    if isinstance(expr, ir.IntConst):
        return Poly.const(expr.value)
    if isinstance(expr, ir.Var):
        if expr.name in loops:
            return Poly.atom(LOOP + expr.name)
        if expr.name in env:
            value = env[expr.name]
            return Poly.atom(LOCAL + expr.name) if value is None else value
        return Poly.atom(expr.name) if expr.name in params else None
    if isinstance(expr, ir.Builtin):
        atom = BUILTIN.get((expr.var, expr.component))
        return Poly.atom(atom) if atom else None
    if isinstance(expr, ir.Cast) and expr.kind == "int":
        return poly_of(expr.operand, params, env, loops)
    if isinstance(expr, ir.Unary) and expr.op in ("-", "+"):
        inner = poly_of(expr.operand, params, env, loops)
        return None if inner is None else (inner if expr.op == "+" else -inner)
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-", "*"):
        lhs = poly_of(expr.lhs, params, env, loops)
        rhs = poly_of(expr.rhs, params, env, loops)
        if lhs is None or rhs is None:
            return None
        return lhs + rhs if expr.op == "+" else lhs - rhs if expr.op == "-" else lhs * rhs
    return None


def conditions(expr, params: set[str], env: dict, loops: frozenset, negate: bool = False
               ) -> list[Poly] | None:
    """``expr`` (or its negation) as a conjunction of ``poly >= 0``; None when it is not one."""
    if isinstance(expr, ir.Unary) and expr.op == "!":
        return conditions(expr.operand, params, env, loops, not negate)
    if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
        if (expr.op == "&&") == negate:
            return None                     # a disjunction
        lhs = conditions(expr.lhs, params, env, loops, negate)
        rhs = conditions(expr.rhs, params, env, loops, negate)
        return None if lhs is None or rhs is None else lhs + rhs
    if not (isinstance(expr, ir.Binary) and expr.op in ("<", "<=", ">", ">=", "==")):
        return None
    lhs = poly_of(expr.lhs, params, env, loops)
    rhs = poly_of(expr.rhs, params, env, loops)
    if lhs is None or rhs is None:
        return None
    op = expr.op
    if op == "==":
        return None if negate else [lhs - rhs, rhs - lhs]
    if negate:
        op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
    return [{"<": rhs - lhs - ONE, "<=": rhs - lhs, ">": lhs - rhs - ONE,
             ">=": lhs - rhs}[op]]


def site_facts(body: ir.KernelBody, span) -> SiteFacts | None:
    """The facts at the subscript whose span is ``span`` (None when it is not found or its
    index is not a polynomial of the source variables)."""
    params = {p.name for p in body.params if p.kind == "int"}
    env = {name: None for name in straight_locals(body)}
    found: list[SiteFacts] = []

    def expr_sites(node, cons, loops):
        for item in walk(node):
            if isinstance(item, ir.Index) and item.span is not None and \
                    (item.span.start, item.span.end) == (span.start, span.end):
                index = poly_of(item.index, params, env, loops)
                if index is not None:
                    found.append(SiteFacts(index, tuple(cons), {}, tuple(sorted(loops))))

    def visit(node, cons, loops):
        if node is None:
            return
        if isinstance(node, ir.Block):
            cons = list(cons)
            for stmt in node.stmts:
                visit(stmt, cons, loops)
                if isinstance(stmt, ir.If) and _returns(stmt.then) and stmt.other is None:
                    cons += conditions(stmt.cond, params, env, loops, negate=True) or []
            return
        if isinstance(node, ir.If):
            expr_sites(node.cond, cons, loops)
            then = conditions(node.cond, params, env, loops) or []
            other = conditions(node.cond, params, env, loops, negate=True) or []
            visit(node.then, list(cons) + then, loops)
            visit(node.other, list(cons) + other, loops)
            return
        if isinstance(node, ir.For):
            visit(node.init, cons, loops)
            counter = _counter(node, params, env, loops)
            inner = loops | {counter[0]} if counter else loops
            extra = []
            if counter:
                extra = [Poly.atom(LOOP + counter[0]) - counter[1]]
                extra += conditions(node.cond, params, env, inner) or []
            expr_sites(node.cond, cons, loops)
            visit(node.body, list(cons) + extra, inner)
            return
        if isinstance(node, ir.While):
            visit(node.body, cons, loops)
            expr_sites(node.cond, cons, loops)
            return
        expr_sites(node, cons, loops)

    visit(body.body, [], frozenset())
    if len(found) != 1:
        return None
    return SiteFacts(found[0].index, found[0].constraints, straight_locals(body), found[0].loops)


def _returns(stmt) -> bool:
    if isinstance(stmt, ir.Return):
        return True
    return isinstance(stmt, ir.Block) and len(stmt.stmts) == 1 and isinstance(stmt.stmts[0],
                                                                              ir.Return)


def _counter(loop: ir.For, params, env, loops) -> tuple[str, Poly] | None:
    """(name, start) of a unit-step counter the body does not assign."""
    init = loop.init
    if isinstance(init, ir.Decl) and init.kind == "int" and init.init is not None:
        name, start = init.name, poly_of(init.init, params, env, loops)
    elif isinstance(init, ir.ExprStmt) and isinstance(init.expr, ir.Assign) and \
            init.expr.op == "=" and isinstance(init.expr.target, ir.Var):
        name, start = init.expr.target.name, poly_of(init.expr.value, params, env, loops)
    else:
        return None
    step = loop.step
    unit = (isinstance(step, ir.Unary) and step.op in ("pre++", "post++")
            and step.operand == ir.Var(name)) or \
        (isinstance(step, ir.Assign) and step.op == "+=" and step.target == ir.Var(name)
         and step.value == ir.IntConst(1))
    if start is None or not unit or name in assigned_names(loop.body) or name in env:
        return None
    return name, start


def render(poly: Poly, prefix: str = "") -> str:
    """Source text of ``poly`` at the site: atoms back to variable names and built-ins
    (``prefix`` before built-in names of a remapped stage: ``s2s_threadIdx.x``)."""
    return poly.to_text(lambda atom: _atom_text(atom, prefix), " * ")


def _atom_text(atom: str, prefix: str) -> str:
    for start in (LOCAL, LOOP):
        if atom.startswith(start):
            return atom[len(start):]
    if atom in BUILTIN_TEXT:
        return prefix + BUILTIN_TEXT[atom]
    return atom
