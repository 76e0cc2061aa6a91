"""Concrete evaluation of kernel IR for brute-force checks of the access analysis.

Every thread of a box runs the kernel body one after the other with plain Python values;
global loads return 0, so data-dependent paths take one concrete branch (the analysis must
cover it: its maps are supersets for *may* accesses and equal for *must* ones). Shared and
local arrays are dictionaries. ``__syncthreads`` is a no-op: only the global accesses matter.
"""

from __future__ import annotations

from s2s.model import kernel_ir as ir

MAX_STEPS = 200_000


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Ptr:
    __slots__ = ("base", "offset", "store")

    def __init__(self, base, offset, store=None):
        self.base, self.offset, self.store = base, offset, store

    def moved(self, delta):
        return _Ptr(self.base, self.offset + delta, self.store)


def _cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def run_threads(kernel: ir.KernelBody, functions: dict, grid, block, scalars: dict, box):
    """{(array, mode): set of offsets} over every thread of ``box`` (lo, hi triples)."""
    seen: dict = {}
    lo, hi = box
    for bz in range(lo[2], hi[2]):
        for by in range(lo[1], hi[1]):
            for bx in range(lo[0], hi[0]):
                shared: dict = {}
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            ev = _Eval(kernel, functions, seen, shared,
                                       {"threadIdx": (tx, ty, tz), "blockIdx": (bx, by, bz),
                                        "blockDim": block, "gridDim": grid})
                            ev.run(scalars)
    return seen


class _Eval:
    def __init__(self, kernel, functions, seen, shared, builtins):
        self.kernel, self.functions, self.seen = kernel, functions, seen
        self.shared, self.builtins, self.steps = shared, builtins, 0

    def note(self, ptr, mode):
        if isinstance(ptr, _Ptr) and ptr.store is None:
            self.seen.setdefault((ptr.base, mode), set()).add(ptr.offset)

    def run(self, scalars):
        env = {}
        for p in self.kernel.params:
            env[p.name] = _Ptr(p.name, 0) if p.kind == "pointer" else scalars.get(p.name, 1.0)
        try:
            self.stmt(self.kernel.body, env)
        except _Return:
            pass

    # statements
    def stmt(self, node, env):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise RuntimeError("evaluation does not terminate")
        kind = type(node)
        if kind is ir.Block:
            for s in node.stmts:
                self.stmt(s, env)
        elif kind is ir.Decl:
            if node.kind == "array":
                env[node.name] = _Ptr(node.name, 0, self.shared.setdefault(node.name, {}))
            else:
                value = self.expr(node.init, env) if node.init is not None else 0
                env[node.name] = int(value) if node.kind == "int" else value
        elif kind is ir.ExprStmt:
            self.expr(node.expr, env)
        elif kind is ir.If:
            if self.expr(node.cond, env):
                self.stmt(node.then, env)
            elif node.other is not None:
                self.stmt(node.other, env)
        elif kind is ir.For:
            if node.init is not None:
                self.stmt(node.init, env)
            while node.cond is None or self.expr(node.cond, env):
                try:
                    self.stmt(node.body, env)
                except _Break:
                    break
                except _Continue:
                    pass
                if node.step is not None:
                    self.expr(node.step, env)
        elif kind is ir.While:
            first = node.do_while
            while first or self.expr(node.cond, env):
                first = False
                try:
                    self.stmt(node.body, env)
                except _Break:
                    break
                except _Continue:
                    pass
        elif kind is ir.Return:
            raise _Return(self.expr(node.value, env) if node.value is not None else None)
        elif kind is ir.Break:
            raise _Break
        elif kind is ir.Continue:
            raise _Continue
        elif kind is ir.OpaqueStmt:
            for child in node.children:
                self.stmt(child, env) if not _is_expr(child) else self.expr(child, env)

    # expressions
    def expr(self, node, env):
        kind = type(node)
        if kind is ir.IntConst:
            return node.value
        if kind is ir.FloatConst:
            return node.value
        if kind is ir.Var:
            return env.get(node.name, 0)
        if kind is ir.Builtin:
            if node.var == "warpSize":
                return 32
            return self.builtins[node.var]["xyz".index(node.component)]
        if kind is ir.Cast:
            value = self.expr(node.operand, env)
            if node.kind == "int":
                return int(value)
            if node.kind == "float":
                return float(value)
            return value
        if kind is ir.Cond:
            return self.expr(node.then if self.expr(node.cond, env) else node.other, env)
        if kind is ir.Binary:
            return self.binary(node, env)
        if kind is ir.Unary:
            return self.unary(node, env)
        if kind is ir.Assign:
            value = self.expr(node.value, env)
            if node.op != "=":
                value = self.apply(node.op[:-1], self.load(node.target, env), value)
            self.store(node.target, env, value)
            return value
        if kind in (ir.Index, ir.Member):
            return self.load(node, env)
        if kind is ir.Call:
            return self.call(node, env)
        for child in getattr(node, "children", ()):
            self.expr(child, env)
        return 0.0

    def binary(self, node, env):
        op = node.op
        if op == "&&":
            return int(bool(self.expr(node.lhs, env)) and bool(self.expr(node.rhs, env)))
        if op == "||":
            return int(bool(self.expr(node.lhs, env)) or bool(self.expr(node.rhs, env)))
        if op == ",":
            self.expr(node.lhs, env)
            return self.expr(node.rhs, env)
        return self.apply(op, self.expr(node.lhs, env), self.expr(node.rhs, env))

    def apply(self, op, a, b):
        if isinstance(a, _Ptr):
            return a.moved(b if op == "+" else -b)
        if isinstance(b, _Ptr):
            return b.moved(a)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                        "!=": a != b}[op])
        if op == "/":
            if isinstance(a, int) and isinstance(b, int):
                return _cdiv(a, b) if b else 0
            return a / b if b else 0.0
        if op == "%":
            return a - b * _cdiv(a, b) if b else 0
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
               "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
               "|": lambda: a | b, "^": lambda: a ^ b}
        return ops[op]()

    def unary(self, node, env):
        op = node.op
        if op in ("pre++", "pre--", "post++", "post--"):
            old = self.load(node.operand, env)
            new = self.apply("+" if "++" in op else "-", old, 1)
            self.store(node.operand, env, new)
            return old if op.startswith("post") else new
        if op == "&":
            return self.address(node.operand, env)
        if op == "*":
            return self.load(node, env)
        value = self.expr(node.operand, env)
        return {"-": lambda: -value, "+": lambda: value, "!": lambda: int(not value),
                "~": lambda: ~value}[op]()

    def address(self, node, env):
        if isinstance(node, ir.Index):
            base = self.row(node.base, env)
            return base.moved(int(self.expr(node.index, env)))
        if isinstance(node, ir.Unary) and node.op == "*":
            return self.expr(node.operand, env)
        if isinstance(node, ir.Member):
            return self.address(node.base, env) if not node.arrow else self.expr(node.base, env)
        return _Ptr("<local>", 0, {})

    def row(self, node, env):
        if isinstance(node, ir.Index):  # a[i] of a multi-dimensional local array
            inner = self.row(node.base, env)
            return inner.moved(1000 * int(self.expr(node.index, env)))
        return self.expr(node, env)

    def load(self, node, env):
        if isinstance(node, ir.Var):
            return env.get(node.name, 0)
        if isinstance(node, ir.Member) and not node.arrow and not isinstance(
                node.base, (ir.Index, ir.Unary)):
            return 0.0
        ptr = self.address(node, env)
        if ptr.store is not None:
            return ptr.store.get(ptr.offset, 0)
        self.note(ptr, "read")
        return 0

    def store(self, node, env, value):
        if isinstance(node, ir.Var):
            env[node.name] = value
            return
        if isinstance(node, ir.Member) and not node.arrow and not isinstance(
                node.base, (ir.Index, ir.Unary)):
            return
        ptr = self.address(node, env)
        if ptr.store is not None:
            ptr.store[ptr.offset] = value
            return
        if isinstance(node, ir.Member):
            self.note(ptr, "read")
        self.note(ptr, "write")

    def call(self, node, env):
        name = node.name
        if name.startswith("atomic"):
            ptr = self.expr(node.args[0], env)
            for arg in node.args[1:]:
                self.expr(arg, env)
            self.note(ptr, "read")
            self.note(ptr, "write")
            return 0
        values = [self.expr(a, env) for a in node.args]
        if name in ("min", "umin") and len(values) == 2:
            return min(values)
        if name in ("max", "umax") and len(values) == 2:
            return max(values)
        if name.startswith("__shfl") and len(values) >= 2:
            return values[1]
        body = self.functions.get(name) if node.device else None
        if body is None:
            return 0.0
        inner = {p.name: v for p, v in zip(body.params, values, strict=False)}
        try:
            self.stmt(body.body, inner)
        except _Return as done:
            return done.value
        return None


def _is_expr(node) -> bool:
    return not isinstance(node, (ir.Block, ir.Decl, ir.ExprStmt, ir.If, ir.For, ir.While,
                                 ir.Return, ir.Break, ir.Continue, ir.OpaqueStmt))
