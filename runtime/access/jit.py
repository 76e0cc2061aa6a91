"""Native range enumerators: an isl AST of a row plan compiled to machine code with llvmlite.

The generated function is ``int64 f(int64 *box, int64 *out, int64 cap)``: ``box`` holds the
box bounds (lx, ly, lz, hx, hy, hz), ranges are written to ``out`` as (start, end) pairs.
Adjacent and overlapping ranges that arrive in order are merged on the fly, so a stencil
partition of full rows comes out as one range. The return value is the number of ranges
(negated when they arrived out of order and still need sorting); when it exceeds ``cap`` only
the first ``cap`` were stored and the caller retries with a larger buffer.

``batch_driver`` is one more native function, compiled once, that runs a table of enumerators
(one per partition and array access of a launch) into one output buffer: a launch's ranges cost
one call from Python instead of one per (partition, array, mode) (``runtime/access/batch.py``).

Only the AST comes from isl (``islmaps.py`` owns every isl call); this module walks it.
"""

from __future__ import annotations

import ctypes
import functools
import threading

import islpy as isl
from llvmlite import binding as llvm
from llvmlite import ir

from runtime.access.islmaps import BOX_PARAMS, RowPlan, ast_of_plan

I64 = ir.IntType(64)
I1 = ir.IntType(1)
FUNC_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                             ctypes.POINTER(ctypes.c_int64), ctypes.c_int64)
#: int64 run_all(int64 n, int64 *fns, int64 *boxes, int64 *out, int64 cap, int64 *counts)
DRIVER_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p)
_LOCK = threading.Lock()
_OP = isl.ast_expr_op_type


@functools.cache
def _engine():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine(opt=3)
    backing = llvm.parse_assembly("")
    engine = llvm.create_mcjit_compiler(backing, target)
    return engine, target


class _Codegen:
    """Translate one isl AST into the body of the enumerator function."""

    def __init__(self, builder: ir.IRBuilder, box, out, cap):
        self.b = builder
        self.box = box
        self.out = out
        self.cap = cap
        self.vars: dict[str, ir.AllocaInstr] = {}
        self.count = self._local("count", 0)
        self.cur_start = self._local("cur_start", 0)
        self.cur_end = self._local("cur_end", 0)
        self.have = self._local("have", 0)
        self.unsorted = self._local("unsorted", 0)
        self.params = {name: builder.load(builder.gep(box, [ir.Constant(I64, k)]), name=name)
                       for k, name in enumerate(BOX_PARAMS)}

    def _local(self, name: str, value: int):
        slot = self.b.alloca(I64, name=name)
        self.b.store(ir.Constant(I64, value), slot)
        return slot

    # --- statements ---------------------------------------------------------------------

    def node(self, node) -> None:
        kind = node.get_type()
        if kind == isl.ast_node_type.block:
            children = node.block_get_children()
            for k in range(children.n_ast_node()):
                self.node(children.get_at(k))
        elif kind == isl.ast_node_type.for_:
            self.for_node(node)
        elif kind == isl.ast_node_type.if_:
            self.if_node(node)
        elif kind == isl.ast_node_type.user:
            call = node.user_get_expr()
            start = self.expr(call.get_op_arg(2))  # args: callee, piece, first, last
            last = self.expr(call.get_op_arg(3))
            self.emit(start, self.b.add(last, ir.Constant(I64, 1)))
        elif kind == isl.ast_node_type.mark:
            self.node(node.mark_get_node())
        else:
            raise NotImplementedError(f"isl AST node {kind}")

    def for_node(self, node) -> None:
        name = node.for_get_iterator().get_id().get_name()
        slot = self.vars.get(name)
        if slot is None:
            with self.b.goto_entry_block():
                slot = self.b.alloca(I64, name=name)
            self.vars[name] = slot
        self.b.store(self.expr(node.for_get_init()), slot)
        head = self.b.append_basic_block("for.head")
        body = self.b.append_basic_block("for.body")
        done = self.b.append_basic_block("for.done")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.b.cbranch(self.cond(node.for_get_cond()), body, done)
        self.b.position_at_end(body)
        self.node(node.for_get_body())
        step = self.expr(node.for_get_inc())
        self.b.store(self.b.add(self.b.load(slot), step), slot)
        self.b.branch(head)
        self.b.position_at_end(done)

    def if_node(self, node) -> None:
        cond = self.cond(node.if_get_cond())
        then = self.b.append_basic_block("if.then")
        done = self.b.append_basic_block("if.done")
        other = self.b.append_basic_block("if.else") if node.if_has_else_node() else done
        self.b.cbranch(cond, then, other)
        self.b.position_at_end(then)
        self.node(node.if_get_then_node())
        self.b.branch(done)
        if other is not done:
            self.b.position_at_end(other)
            self.node(node.if_get_else_node())
            self.b.branch(done)
        self.b.position_at_end(done)

    def emit(self, start, end) -> None:
        """Join the current range when ``[start, end)`` overlaps or touches it, else flush it
        and start anew; then fold the current range into flushed ones it reaches back to.
        Whatever still lands before a flushed range marks the output unsorted."""
        b = self.b
        have = b.icmp_signed("!=", b.load(self.have), ir.Constant(I64, 0))
        cur_start, cur_end = b.load(self.cur_start), b.load(self.cur_end)
        touches = b.and_(b.icmp_signed("<=", start, cur_end), b.icmp_signed(">=", end, cur_start))
        with b.if_else(b.and_(have, touches)) as (then, otherwise):
            with then:
                b.store(self.min(start, cur_start), self.cur_start)
                b.store(self.max(end, cur_end), self.cur_end)
            with otherwise:
                with b.if_then(have):
                    self.flush(cur_start, cur_end)
                b.store(start, self.cur_start)
                b.store(end, self.cur_end)
                b.store(ir.Constant(I64, 1), self.have)
        self.absorb()

    def min(self, a, c):
        return self.b.select(self.b.icmp_signed("<", a, c), a, c)

    def max(self, a, c):
        return self.b.select(self.b.icmp_signed(">", a, c), a, c)

    def absorb(self) -> None:
        b = self.b
        head = b.append_basic_block("absorb.head")
        check = b.append_basic_block("absorb.check")
        merge = b.append_basic_block("absorb.merge")
        done = b.append_basic_block("absorb.done")
        b.branch(head)
        b.position_at_end(head)
        count = b.load(self.count)
        stored = b.and_(b.icmp_signed(">", count, ir.Constant(I64, 0)),
                        b.icmp_signed("<=", count, self.cap))
        b.cbranch(stored, check, done)
        b.position_at_end(check)
        at = b.mul(b.sub(count, ir.Constant(I64, 1)), ir.Constant(I64, 2))
        prev_start = b.load(b.gep(self.out, [at]))
        prev_end = b.load(b.gep(self.out, [b.add(at, ir.Constant(I64, 1))]))
        cur_start, cur_end = b.load(self.cur_start), b.load(self.cur_end)
        with b.if_then(b.icmp_signed("<", cur_end, prev_start)):
            b.store(ir.Constant(I64, 1), self.unsorted)
        reach = b.and_(b.icmp_signed("<=", cur_start, prev_end),
                       b.icmp_signed(">=", cur_end, prev_start))
        b.cbranch(reach, merge, done)
        b.position_at_end(merge)
        b.store(self.min(prev_start, cur_start), self.cur_start)
        b.store(self.max(prev_end, cur_end), self.cur_end)
        b.store(b.sub(count, ir.Constant(I64, 1)), self.count)
        b.branch(head)
        b.position_at_end(done)

    def flush(self, start, end) -> None:
        b = self.b
        count = b.load(self.count)
        with b.if_then(b.icmp_signed("<", count, self.cap)):
            at = b.mul(count, ir.Constant(I64, 2))
            b.store(start, b.gep(self.out, [at]))
            b.store(end, b.gep(self.out, [b.add(at, ir.Constant(I64, 1))]))
        b.store(b.add(count, ir.Constant(I64, 1)), self.count)

    def finish(self) -> None:
        b = self.b
        with b.if_then(b.icmp_signed("!=", b.load(self.have), ir.Constant(I64, 0))):
            self.flush(b.load(self.cur_start), b.load(self.cur_end))
        count = b.load(self.count)
        unsorted = b.icmp_signed("!=", b.load(self.unsorted), ir.Constant(I64, 0))
        b.ret(b.select(unsorted, b.neg(count), count))

    # --- expressions --------------------------------------------------------------------

    def cond(self, expr):
        value = self.expr(expr)
        if value.type == I1:
            return value
        return self.b.icmp_signed("!=", value, ir.Constant(I64, 0))

    def expr(self, expr):
        kind = expr.get_type()
        if kind == isl.ast_expr_type.int:
            return ir.Constant(I64, expr.get_val().to_python())
        if kind == isl.ast_expr_type.id:
            name = expr.get_id().get_name()
            if name in self.params:
                return self.params[name]
            return self.b.load(self.vars[name])
        op = expr.get_op_type()
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
        b = self.b
        if op in (_OP.and_, _OP.and_then, _OP.or_, _OP.or_else):
            left, right = self.cond(args[0]), self.cond(args[1])
            return b.and_(left, right) if op in (_OP.and_, _OP.and_then) else b.or_(left, right)
        if op in (_OP.cond, _OP.select):
            return b.select(self.cond(args[0]), self.expr(args[1]), self.expr(args[2]))
        values = [self.expr(a) for a in args]
        if op == _OP.minus:
            return b.neg(values[0])
        compare = {_OP.eq: "==", _OP.le: "<=", _OP.lt: "<", _OP.ge: ">=", _OP.gt: ">"}
        if op in compare:
            return b.icmp_signed(compare[op], values[0], values[1])
        if op in (_OP.max, _OP.min):
            result = values[0]
            for value in values[1:]:
                pick = b.icmp_signed(">" if op == _OP.max else "<", value, result)
                result = b.select(pick, value, result)
            return result
        simple = {_OP.add: b.add, _OP.sub: b.sub, _OP.mul: b.mul, _OP.div: b.sdiv,
                  _OP.pdiv_q: b.sdiv, _OP.pdiv_r: b.srem, _OP.zdiv_r: b.srem}
        if op in simple:
            return simple[op](values[0], values[1])
        if op == _OP.fdiv_q:
            return self.floor_div(values[0], values[1])
        raise NotImplementedError(f"isl AST operation {op}")

    def floor_div(self, a, d):
        """floor(a / d) for d > 0 (isl guarantees a positive divisor)."""
        b = self.b
        negative = b.icmp_signed("<", a, ir.Constant(I64, 0))
        adjusted = b.sub(b.add(a, ir.Constant(I64, 1)), d)
        return b.sdiv(b.select(negative, adjusted, a), d)


_COUNTER = [0]


def _add_module(module: ir.Module, name: str) -> int:
    """Optimise and load ``module``; the address of its function ``name``."""
    with _LOCK:
        engine, target = _engine()
        parsed = llvm.parse_assembly(str(module))
        parsed.verify()
        tuning = llvm.create_pipeline_tuning_options(speed_level=2)
        passes = llvm.create_pass_builder(target, tuning)
        passes.getModulePassManager().run(parsed, passes)
        engine.add_module(parsed)
        engine.finalize_object()
        return engine.get_function_address(name)


def compile_plan(plan: RowPlan):
    """A ctypes function enumerating ``plan``'s ranges for a box (see the module docstring)."""
    ast = ast_of_plan(plan)
    module = ir.Module(name="access_enum")
    func = ir.Function(module, ir.FunctionType(I64, [I64.as_pointer(), I64.as_pointer(), I64]),
                       name="enumerate")
    box, out, cap = func.args
    builder = ir.IRBuilder(func.append_basic_block("entry"))
    gen = _Codegen(builder, box, out, cap)
    if ast is not None:
        gen.node(ast)
    gen.finish()
    with _LOCK:
        _COUNTER[0] += 1
        func.name = f"enumerate_{_COUNTER[0]}"
    return FUNC_TYPE(_add_module(module, func.name))


@functools.cache
def batch_driver():
    """``run_all(n, fns, boxes, out, cap, counts)``: for q < n, call enumerator ``fns[q]`` on the box
    ``boxes[6q:6q+6]`` writing at the current end of ``out`` with the capacity left, store its
    count in ``counts[q]`` and advance by the count's magnitude; return the total. Past ``cap`` the
    enumerators store nothing but still count, so the caller learns the size to retry with."""
    module = ir.Module(name="access_batch")
    enum_ptr = ir.FunctionType(I64, [I64.as_pointer(), I64.as_pointer(), I64]).as_pointer()
    func = ir.Function(module, ir.FunctionType(I64, [I64, I64.as_pointer(), I64.as_pointer(),
                                                     I64.as_pointer(), I64, I64.as_pointer()]),
                       name="access_run_all")
    n, fns, boxes, out, cap, counts = func.args
    b = ir.IRBuilder(func.append_basic_block("entry"))
    zero = ir.Constant(I64, 0)
    q_slot, pos_slot = b.alloca(I64), b.alloca(I64)
    b.store(zero, q_slot)
    b.store(zero, pos_slot)
    head, body, done = (func.append_basic_block(x) for x in ("head", "body", "done"))
    b.branch(head)
    b.position_at_end(head)
    q = b.load(q_slot)
    b.cbranch(b.icmp_signed("<", q, n), body, done)
    b.position_at_end(body)
    pos = b.load(pos_slot)
    left = b.sub(cap, pos)
    left = b.select(b.icmp_signed("<", left, zero), zero, left)
    target = b.inttoptr(b.load(b.gep(fns, [q])), enum_ptr)
    count = b.call(target, [b.gep(boxes, [b.mul(q, ir.Constant(I64, 6))]),
                            b.gep(out, [b.mul(b.select(b.icmp_signed(">", pos, cap), cap, pos),
                                              ir.Constant(I64, 2))]), left])
    b.store(count, b.gep(counts, [q]))
    size = b.select(b.icmp_signed("<", count, zero), b.neg(count), count)
    b.store(b.add(pos, size), pos_slot)
    b.store(b.add(q, ir.Constant(I64, 1)), q_slot)
    b.branch(head)
    b.position_at_end(done)
    b.ret(b.load(pos_slot))
    return DRIVER_TYPE(_add_module(module, func.name))
