"""Slices of region buffers and loops over arrays of device pointers (issue 29, item 5).

**Slices.** ``d + 2 * n`` or ``&d[k]`` as a launch argument names part of device buffer
``d``: the launch reads what the kernel reads of it and updates it where it writes (the rest
keeps its value, so a write of a buffer holding a value is a read too). A copy of part of a
buffer -- fewer bytes than the buffer holds, or from/to ``d + off`` / ``&h[i]`` -- stays where
it is written, as one operation on each side: the source side reads its buffer, the target
side updates its buffer (reads it when it holds a value: the bytes the copy does not reach
keep theirs). A pooled buffer keeps its own slot, so offsets into it stay inside it: pooling
stays legal, and the plan still moves and merges the copies of the other buffers.

**Element loops.** ``float *d[3]; for (int k = 0; k < 3; k++) cudaMalloc(&d[k], bytes);``: a
top-level loop whose body's statements are each one CUDA memory call on an element ``d[i]``
(variable index) of a local array of device pointers with a literal size (or statements
that touch no region buffer) makes each element ``d[0]`` .. ``d[2]`` a buffer of its own,
as constant indices do (``host_args._element``). The loop is one statement of the region
with several operations, in program order: the allocation of every element, the frees, and
each copy or fill as it stays written (a write through ``d[i]`` may reach any element, so
it updates them all). The rewrite points the elements at their slots inside the loop
(``s2s_off_d[k]``), so the loop runs as often as before.

A mixin of ``host_code._Extractor``.
"""

from __future__ import annotations

import dataclasses
import re

from s2s.analysis.transfers.region import DEVICE, HOST, Alloc, Free, HostCode, Launch, Op
from s2s.model import SourceSpan, Stmt
from s2s.model import kernel_ir as ir
from s2s.model.cuda import ApiCall

LOOP_KINDS = ("for", "while", "do")
_KINDS = {"cudaMemcpyHostToDevice": (DEVICE, HOST), "cudaMemcpyDeviceToHost": (HOST, DEVICE)}
#: operators an index expression may use (it is evaluated again by the rewrite)
_PURE_OPS = frozenset({"+", "-", "*", "/", "%"})


def _strip(value):
    while isinstance(value, ir.Cast):
        value = value.operand
    return value


def _pure(value) -> bool:
    """An index expression without side effects (variables, constants, arithmetic)."""
    value = _strip(value)
    if isinstance(value, (ir.Var, ir.IntConst)):
        return True
    if isinstance(value, ir.Binary):
        return value.op in _PURE_OPS and _pure(value.lhs) and _pure(value.rhs)
    return False


class Slices:
    """Slices and element loops (see the module docstring)."""

    # -- slices -------------------------------------------------------------------------

    def sliced_buffer(self, site: SourceSpan, callee: str, position: int) -> str:
        """The region buffer argument ``position`` is a slice of (``d + off``, ``off + d``,
        ``&d[i]``), or ""."""
        arg = self._host_arg(site, callee, position)
        value = _strip(arg.value) if arg is not None else None
        base = None
        if isinstance(value, ir.Binary):
            base = self._offset_base(value)
        elif isinstance(value, ir.Unary) and value.op == "&":
            inner = _strip(value.operand)
            if isinstance(inner, ir.Index) and isinstance(_strip(inner.base), ir.Var):
                base = _strip(inner.base).name
        if base is None or base not in self.space:
            return ""
        mentioned = [u for u in self._arg_uses(site, callee, position)
                     if u.name in self.space or u.name in self.arrays]
        if [u.name for u in mentioned] != [base]:
            return ""
        return base

    def _offset_base(self, value) -> str | None:
        """``d`` for ``d + a + b``, ``a + d``, ``d + a - b`` (pointer arithmetic on one region
        buffer), else None."""
        value = _strip(value)
        if isinstance(value, ir.Var):
            return value.name if value.name in self.space else None
        if not isinstance(value, ir.Binary) or value.op not in ("+", "-"):
            return None
        left, right = self._offset_base(value.lhs), self._offset_base(value.rhs)
        if value.op == "-":
            return left if right is None else None
        return left if right is None else right if left is None else None

    def _side(self, call: ApiCall, position: int) -> tuple[str, bool] | None:
        """(buffer, whole) for a copy's pointer argument: the buffer itself or a slice."""
        name = self._variable(call.span, call.name, position)
        if name in self.space:
            return name, self._same_size(call, name)
        sliced = self.sliced_buffer(call.span, call.name, position)
        return (sliced, False) if sliced else None

    def slice_copy(self, call: ApiCall) -> tuple[Op, ...] | None:
        """The operations of a copy of part of a buffer, which stays as written (None: a
        copy of whole buffers, or one the other paths handle)."""
        dst, src = self._side(call, 0), self._side(call, 1)
        if dst is None or src is None or dst[1] and src[1]:
            return None
        label = f"{call.name} of a part at line {call.span.line}"
        (target, _), (source, _) = dst, src
        update = (target,) if target in self.has_value else ()
        self.has_value.add(target)
        if self.space[target] == self.space[source]:
            make = Launch if self.space[target] == DEVICE else HostCode
            return (make(label, (source, *update), (target,), call.span),)
        first = Launch if self.space[source] == DEVICE else HostCode
        second = Launch if self.space[target] == DEVICE else HostCode
        return first(label, (source,), (), call.span), second(label, update, (target,), call.span)

    # -- loops over arrays of device pointers -------------------------------------------

    def element_allocation(self, call: ApiCall, index: int) -> list[str]:
        """The elements ``cudaMalloc(&d[i], size)`` allocates, when it is a statement of the
        body of top-level loop ``index`` (see the module docstring), else []."""
        stmt = self.function.body.children[index]
        found = self._indexed_element(call, 0, address=True)
        if found is None or stmt.kind not in LOOP_KINDS or stmt.body is None:
            return []
        array, _ = found
        count = self._array_count(array)
        if count is None:
            return []
        changed = {u.name for u in self._uses(stmt.span) if u.role in ("declare", "init", "assign", "null-init")}
        if {u.name for u in self._arg_uses(call.span, call.name, 1)} & changed:
            return []          # a size that changes in the loop: one slot size per element unknown
        self.arrays.setdefault(array, [])
        return [f"{array}[{k}]" for k in range(count)]

    def _indexed_element(self, call: ApiCall, position: int, address: bool = False):
        """(array, Index node) when the argument is ``a[i]`` (``&a[i]`` with ``address``) for a
        side-effect-free, non-constant ``i`` and a local array of pointers ``a``."""
        arg = self._host_arg(call.span, call.name, position)
        value = _strip(arg.value) if arg is not None else None
        if address:
            if not (isinstance(value, ir.Unary) and value.op == "&"):
                return None
            value = _strip(value.operand)
        if not isinstance(value, ir.Index) or not isinstance(_strip(value.base), ir.Var):
            return None
        if isinstance(value.index, ir.IntConst) or not _pure(value.index):
            return None
        array = _strip(value.base).name
        uses = self._arg_uses(call.span, call.name, position)
        if not any(u.name == array and u.role == "subscript" for u in uses):
            return None
        return array, value

    def _array_count(self, array: str) -> int | None:
        """The size of local array of pointers ``array``: written as a literal (``float
        *d[3]``) or one the type fixes (``float *d[NGPU]``, ``d[num_gpus]`` of a ``const int``:
        the extent clang gives the array's type)."""
        for alloc in self.model.in_function("allocations", self.function.name):
            if alloc.name != array or alloc.kind != "static_array" or not alloc.element_type.endswith("*"):
                continue
            if len(alloc.extents) == 1 and isinstance(alloc.extents[0], int):
                return alloc.extents[0]
            if alloc.count is not None and re.fullmatch(r"\d+", alloc.count.text.strip()):
                return int(alloc.count.text.strip())
        return None

    def element_loop_calls(self, stmt: Stmt, calls: list[ApiCall]) -> list[tuple] | None:
        """``(body statement, call, array, element as written, wrapper macro)`` for each memory
        call of a loop over elements of arrays of device pointers (see the module docstring),
        or None when ``stmt`` is not one."""
        if stmt.kind not in LOOP_KINDS or stmt.body is None or not self.arrays:
            return None
        body = stmt.body.children if stmt.body.kind == "block" else (stmt.body,)
        found, spans = [], []
        for child in body:
            inside = [c for c in calls if child.span.contains(c.span)]
            if not inside:
                continue
            if len(inside) != 1 or child.kind != "expr":
                return None
            call = inside[0]
            position = 1 if call.name.startswith("cudaMemcpy") and _KINDS.get(
                call.args[3].text.strip() if len(call.args) > 3 else "", (None,))[0] == HOST else 0
            element = self._indexed_element(call, 0, address=True) if call.name == "cudaMalloc" else \
                self._indexed_element(call, position)
            if element is None or element[0] not in self.arrays or not self.arrays[element[0]]:
                return None
            text = element[1].span.text(self.source) if element[1].span is not None else ""
            if not text.startswith(element[0]) or not text.endswith("]"):
                return None                        # spelled in a macro's body: no text to edit
            found.append((child, call, element[0], text, self._api_statement(child, call)))
            spans.append(call.span)
        if not found:
            return None
        for use in self._uses(stmt.span):
            if (use.name in self.space or use.name in self.arrays) and not any(s.contains(use.span) for s in spans):
                self.refuse_loop(f"'{use.name}' is used next to the CUDA calls of a loop over the elements of "
                                 "an array of device pointers", use.span)
        return found

    def element_loop_ops(self, stmt: Stmt, index: int, parts) -> tuple[Op, ...]:
        """The operations of an element loop, in program order (see the module docstring)."""
        ops: list[Op] = []
        for _child, call, array, *_ in parts:
            names = list(self.arrays[array])
            label = f"{call.name} of '{array}[...]' at line {call.span.line}"
            held = tuple(n for n in names if n in self.has_value)
            if call.name == "cudaMalloc":
                ops += [Alloc(n, call.span) for n in names]
            elif call.name == "cudaFree":
                for n in names:
                    self.free_at[n] = index
                ops += [Free(n, call.span) for n in names]
            elif call.name.startswith("cudaMemcpy"):
                ops += self._element_copy(call, names, held, label)
            else:                                  # cudaMemset: every element may be filled
                ops.append(Launch(label, held, tuple(names), call.span))
                self.has_value.update(names)
        return tuple(ops)

    def _element_copy(self, call: ApiCall, names: list[str], held: tuple[str, ...], label: str) -> list[Op]:
        kinds = _KINDS.get(call.args[3].text.strip()) if len(call.args) > 3 else None
        if kinds is None:
            self._refuse(f"the copy kind '{call.args[3].text.strip() if len(call.args) > 3 else ''}' of a "
                         "copy of an element", call.span, "transfers-copy-kind")
        other_position = 1 if kinds[0] == DEVICE else 0
        other = self._variable(call.span, call.name, other_position)
        if other not in self.space:
            other = self.sliced_buffer(call.span, call.name, other_position) or \
                self._plain(call.span, call.name, other_position, call.args[other_position].text)
        if other and self.space[other] == DEVICE:
            self._refuse("a device-to-device copy of an element", call.span, "transfers-copy-kind")
        if kinds[0] == DEVICE:                     # upload into one of the elements
            host = [HostCode(label, (other,), (), call.span)] if other in self.has_value else []
            self.has_value.update(names)
            return host + [Launch(label, held, tuple(names), call.span)]
        device = [Launch(label, held, (), call.span)] if held else []
        if not other:
            return device
        update = (other,) if other in self.has_value else ()
        self.has_value.add(other)
        return device + [HostCode(label, update, (other,), call.span)]

    def element_use(self, use) -> bool:
        """Whether a mention of an array of device pointers is an element in a call of an
        element loop (``check_arrays`` lets it through)."""
        for stmt in self.function.body.children:
            if stmt.kind in LOOP_KINDS and stmt.span.contains(use.span) and use.role == "subscript" and \
                    use.call in ("cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemset"):
                return True
        return False

    def whole_arrays(self, buffers: list) -> list:
        """``buffers`` with the elements of an array allocated in an element loop pooled all
        together or not at all (the loop points every element at a slot, or allocates it)."""
        loops = {name.split("[")[0] for name in self.space if "[" in name and
                 self.function.body.children[self.alloc_at[name]].kind in LOOP_KINDS}
        whole = {array: all(b.can_move for b in buffers if b.name.startswith(array + "[")) for array in loops}
        return [dataclasses.replace(b, movable=False) if "[" in b.name and not whole.get(b.name.split("[")[0], True)
                else b for b in buffers]
