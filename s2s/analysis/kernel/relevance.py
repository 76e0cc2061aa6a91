"""Variables of a kernel whose values steer no global-memory access.

Why: the interpreter forks a state at every condition, including the ``?:`` of a value that
only indexes a shared-memory tile. Rodinia's hotspot clamps four neighbour indexes of its tile
(``N = (N < validYmin) ? validYmin : N;`` for N, S, W and E), which multiplies its paths by 16
before the kernel's main loop and puts it past the interpreter's limit on paths. A variable
whose value reaches only local or shared indexes, values stored to memory, or other such
variables, cannot change a record; when an assignment to it forks, the forks can be joined
back into the state before it (they partition it) with the variable unknown, and no record
changes.

A variable is *relevant* when its value flows, through assignments, into: the index or base
of an access that is not to a local or ``__shared__`` array, a condition of ``if``, a loop or
a ``?:``/``&&``/``||`` whose value is not assigned to a variable, a call's argument (``min``,
``max`` and ``abs`` pass their arguments' flow on), a return value, or anything opaque. Names
are taken over the kernel and every inlinable device function together, so a name shared by
two functions is relevant when it is relevant in either.
"""

from __future__ import annotations

from s2s.analysis.kernel.loops import walk
from s2s.model import kernel_ir as ir

RELEVANT = object()
DISCARD = object()
PASS_ON = frozenset({"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
                     "abs", "labs", "llabs"})
STATEMENTS = (ir.Block, ir.If, ir.For, ir.While, ir.Decl, ir.ExprStmt, ir.Return, ir.Break,
              ir.Continue, ir.OpaqueStmt)


def irrelevant_names(bodies) -> frozenset[str]:
    """Names assigned in ``bodies`` (kernel and device functions) whose values steer no
    global access (see the module docstring)."""
    flows = _Flows(_local_arrays(bodies))
    for body in bodies:
        for param in body.params:
            flows.relevant.add(param.name)
        flows.stmt(body.body)
    relevant = set(flows.relevant)
    pending = list(relevant)
    while pending:
        name = pending.pop()
        for source in flows.into.get(name, ()):
            if source not in relevant:
                relevant.add(source)
                pending.append(source)
    return frozenset(flows.assigned - relevant)


def _local_arrays(bodies) -> frozenset[str]:
    """Names declared only as local or shared arrays (a name also declared otherwise, or a
    parameter's, is not one)."""
    arrays, others = set(), set()
    for body in bodies:
        others |= {p.name for p in body.params}
        for item in walk(body.body):
            if isinstance(item, ir.Decl):
                (arrays if item.kind == "array" else others).add(item.name)
    return frozenset(arrays - others)


class _Flows:
    """One walk over the IR: which names flow into which variable, which are relevant."""

    def __init__(self, local_arrays: frozenset[str]):
        self.local_arrays = local_arrays
        self.into: dict[str, set[str]] = {}
        self.relevant: set[str] = set()
        self.assigned: set[str] = set()

    def mark(self, name: str, sink) -> None:
        if sink is RELEVANT:
            self.relevant.add(name)
        elif sink is not DISCARD:
            self.into.setdefault(sink, set()).add(name)

    def stmt(self, node) -> None:
        if isinstance(node, ir.Block):
            for child in node.stmts:
                self.stmt(child)
        elif isinstance(node, ir.Decl):
            if node.kind != "array":
                self.assigned.add(node.name)
            if node.init is not None:
                self.expr(node.init, node.name if node.kind == "int" else RELEVANT)
        elif isinstance(node, ir.ExprStmt):
            self.expr(node.expr, DISCARD)
        elif isinstance(node, ir.If):
            self.expr(node.cond, RELEVANT)
            self.stmt(node.then)
            if node.other is not None:
                self.stmt(node.other)
        elif isinstance(node, ir.For):
            for part in (node.init, node.body):
                if part is not None:
                    self.stmt(part)
            for part in (node.cond, node.step):
                if part is not None:
                    self.expr(part, RELEVANT)
        elif isinstance(node, ir.While):
            self.expr(node.cond, RELEVANT)
            self.stmt(node.body)
        elif isinstance(node, ir.Return) and node.value is not None:
            self.expr(node.value, RELEVANT)
        elif isinstance(node, ir.OpaqueStmt):
            self.opaque(node.children)

    def opaque(self, children) -> None:
        for child in children:
            if isinstance(child, STATEMENTS):
                self.stmt(child)
            else:
                self.expr(child, RELEVANT)

    def expr(self, node, sink) -> None:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is not None:
            method(node, sink)
        elif isinstance(node, ir.Opaque):
            self.opaque(node.children)

    def expr_Var(self, node: ir.Var, sink) -> None:
        self.mark(node.name, sink)

    def expr_Unary(self, node: ir.Unary, sink) -> None:
        self.expr(node.operand, RELEVANT if node.op in ("*", "&") else sink)

    def expr_Binary(self, node: ir.Binary, sink) -> None:
        if node.op in ("&&", "||") and (sink is DISCARD or sink is RELEVANT):
            sink = RELEVANT
        self.expr(node.lhs, sink)
        self.expr(node.rhs, sink)

    def expr_Cond(self, node: ir.Cond, sink) -> None:
        self.expr(node.cond, RELEVANT if sink is DISCARD else sink)
        self.expr(node.then, sink)
        self.expr(node.other, sink)

    def expr_Assign(self, node: ir.Assign, sink) -> None:
        if isinstance(node.target, ir.Var):
            self.assigned.add(node.target.name)
            self.expr(node.value, node.target.name)
            self.mark(node.target.name, sink)
            return
        self.expr(node.target, DISCARD)
        self.expr(node.value, sink)

    def expr_Index(self, node: ir.Index, sink) -> None:
        if self.local(node.base):
            self.expr(node.base, DISCARD)
            self.expr(node.index, DISCARD)
            return
        self.expr(node.base, RELEVANT)
        self.expr(node.index, RELEVANT)

    def local(self, base) -> bool:
        if isinstance(base, ir.Index):
            return self.local(base.base)
        return isinstance(base, ir.Var) and (base.global_array or base.name in self.local_arrays)

    def expr_Member(self, node: ir.Member, sink) -> None:
        self.expr(node.base, RELEVANT)

    def expr_Call(self, node: ir.Call, sink) -> None:
        inner = sink if node.name in PASS_ON and not node.device else RELEVANT
        for arg in node.args:
            self.expr(arg, inner)

    def expr_Cast(self, node: ir.Cast, sink) -> None:
        self.expr(node.operand, sink if node.kind in ("int", "float") else RELEVANT)
