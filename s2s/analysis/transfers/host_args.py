"""What the arguments of the CUDA calls and launches of a transfer region name, split from
:mod:`host_code`: plain buffers, their sizes, and the calls that stay where they are (fills,
copies with one side the rewrite does not follow).

A mixin of ``host_code._Extractor``: the methods read its ``space``, ``sizes``,
``size_trees``, ``has_value``, ``index`` and ``source``. Every fact comes from the AST's
mentions (``VarUse``) and lowered arguments (``HostArg``) of ``s2s.frontend.host.facts``.
"""

from __future__ import annotations

import dataclasses
import re

from s2s.analysis.host_eval import product_form, same_size
from s2s.analysis.transfers.region import DEVICE, HostCode, Launch, Op
from s2s.analysis.transfers.struct_members import struct_member_reason
from s2s.model import SourceSpan
from s2s.model import kernel_ir as ir
from s2s.model.cuda import ApiCall
from s2s.model.host_facts import HostArg, VarUse


def normalized_text(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _strip(value):
    while isinstance(value, ir.Cast):
        value = value.operand
    return value


def _indexed(value) -> tuple[str, object] | None:
    """``(a, i)`` when ``value`` is ``a[i]`` (casts aside) for a variable ``a``."""
    value = _strip(value)
    if isinstance(value, ir.Index) and isinstance(_strip(value.base), ir.Var):
        return _strip(value.base).name, value.index
    return None


class CallArgs:
    """Region buffers in call arguments (see the module docstring)."""

    def _host_arg(self, site: SourceSpan, callee: str, position: int) -> HostArg | None:
        found = [a for a in self.index.host_args.inside(site) if (a.call, a.position) == (callee, position)]
        return found[0] if len(found) == 1 else None

    def _size_tree(self, name: str, site: SourceSpan, callee: str, position: int) -> None:
        arg = self._host_arg(site, callee, position)
        if arg is not None:
            self.size_trees[name] = arg.value

    def _same_size(self, call: ApiCall, name: str) -> bool:
        """Whether the copy's byte count is the buffer's size: the same product of the same
        factors in the AST (``sizeof(T) * NX * NY`` is ``NX * NY * sizeof(T)``), or the same
        text where a tree is missing."""
        arg = self._host_arg(call.span, call.name, 2)
        if arg is not None and name in self.size_trees and same_size(arg.value, self.size_trees[name]):
            return True
        if arg is not None and name in self.size_trees and \
                same_size(self._fixed_names(arg.value), self._fixed_names(self.size_trees[name])):
            return True
        return normalized_text(call.args[2].text) == normalized_text(self.sizes[name])

    def _fixed_names(self, tree):
        """``tree`` with each local that holds one product (declared with it, never assigned or
        its address taken: ``size_t bytes = n * sizeof(double);``) replaced by it, when no
        name the result mentions changes in the function either: a copy of ``bytes`` covers a
        buffer of ``n * sizeof(double)`` (None when a name changes)."""
        changing = {u.name for u in self._uses(self.function.span)
                    if u.role in ("assign", "address")}
        values: dict[str, list] = {}
        for decl in self.model.in_function("host_decls", self.function.name):
            values.setdefault(decl.name, []).append(decl.value)

        def walk(node, depth=0):
            if isinstance(node, ir.Var):
                found = values.get(node.name, [])
                if node.name in changing or depth > 8:
                    raise LookupError(node.name)
                value = walk(found[0], depth + 1) if len(found) == 1 else None
                return node if value is None or product_form(value) is None else value
            if dataclasses.is_dataclass(node):
                return dataclasses.replace(node, **{f.name: walk(getattr(node, f.name), depth)
                                                    for f in dataclasses.fields(node)
                                                    if dataclasses.is_dataclass(getattr(node, f.name))})
            return node
        try:
            return walk(tree)
        except LookupError:
            return None

    def _uses(self, span: SourceSpan) -> list[VarUse]:
        """The variable mentions inside ``span`` (from the AST, ``s2s.frontend.host.facts``)."""
        return self.index.var_uses.inside(span)

    def _arg_uses(self, site: SourceSpan, callee: str, position: int) -> list[VarUse]:
        """The mentions in argument ``position`` of the call of ``callee`` at ``site`` (the
        AST records each mention's call argument: inside a macro every extent is the
        macro's, so argument spans cannot tell the arguments apart)."""
        return [u for u in self._uses(site) if (u.call, u.position) == (callee, position)]

    def _address_of(self, call: ApiCall) -> str | None:
        """``d`` when the first argument is ``&d`` (casts allowed: ``(void **)&d``) and
        mentions nothing else."""
        uses = self._arg_uses(call.span, call.name, 0)
        if len(uses) == 1 and uses[0].role == "address":
            return uses[0].name
        return self._element(call.span, call.name, 0, address=True)

    def _variable(self, site: SourceSpan, callee: str, position: int) -> str | None:
        """The variable when the argument is exactly one, casts aside (``h``, not ``h[0]``,
        ``h + k``, ``s.h``)."""
        uses = self._arg_uses(site, callee, position)
        if len(uses) == 1 and uses[0].role == "argument":
            return uses[0].name
        return self._element(site, callee, position)

    # -- elements of arrays of device pointers (``float *d[2]``) --------------------------

    def _element(self, site: SourceSpan, callee: str, position: int, address: bool = False) -> str | None:
        """``"a[k]"`` when the argument is ``a[k]`` (with ``address``: ``&a[k]``, a cudaMalloc
        target, which makes ``a`` an array of device buffers) for a constant ``k`` and an array
        ``a`` whose elements are region buffers: each element is a buffer of its own."""
        arg = self._host_arg(site, callee, position)
        value = _strip(arg.value) if arg is not None else None
        if address:
            if not (isinstance(value, ir.Unary) and value.op == "&"):
                return None
            value = value.operand
        found = _indexed(value) if value is not None else None
        if found is None or not isinstance(found[1], ir.IntConst) or not address and found[0] not in self.arrays:
            return None
        uses = self._arg_uses(site, callee, position)
        if len(uses) != 1 or uses[0].role != "subscript" or uses[0].name != found[0]:
            return None
        return f"{found[0]}[{found[1].value}]"

    def _unfollowed_allocation(self, call: ApiCall) -> tuple[str, SourceSpan, str]:
        """Why a cudaMalloc's target is not followed (message, place, id). A data member
        (``cudaMalloc(&d_pos_, n)`` in a constructor) has a lifetime across the class's member
        functions (freed in the destructor, used in others): pooling it, or merging its copies
        with another member's, would change those functions too, and its host side is often a
        container's storage no pool can hold. The frees named in the message are found by the
        member's spelling (a message, not a decision)."""
        arg = self._host_arg(call.span, call.name, 0)
        value = _strip(arg.value) if arg is not None else None
        target = value.operand if isinstance(value, ir.Unary) and value.op == "&" else None
        if isinstance(target, ir.Opaque) and target.text == "member" and target.span is not None:
            member = target.span.text(self.source).strip()
            frees = sorted({c.function for c in self.model.api_calls if c.name == "cudaFree" and c.args and
                            c.args[0].text.strip() == member and c.function != self.function.name})
            where = f", freed in {', '.join(repr(f) for f in frees)}" if frees else ""
            return (f"'{member}' is a data member allocated in '{self.function.name}'{where}: its storage "
                    "lives across the class's member functions, and the rewrite pools and merges only "
                    "buffers one function allocates and frees", call.span, "transfers-member")
        if isinstance(target, ir.Member) and not isinstance(target.base, ir.Unary):   # s.m
            return struct_member_reason(self.model, self.function, target), call.span, "transfers-member"
        return f"cannot follow the pointer allocated by '{call.span.text(self.source)}'", call.span, "transfers-escape"

    def _candidates(self, site: SourceSpan, callee: str, position: int) -> list[str]:
        """The elements ``a[i]`` may be, for an index ``i`` that is not a constant into an
        array of device buffers: every element allocated here (``check_arrays`` made sure
        there are no others the program could index)."""
        chosen = self.chosen_buffers(site, callee, position)   # c ? a : b, an alias (host_choices)
        if chosen:
            return chosen
        arg = self._host_arg(site, callee, position)
        found = _indexed(arg.value) if arg is not None else None
        if found is None or found[0] not in self.arrays or isinstance(found[1], ir.IntConst):
            return []
        return list(self.arrays[found[0]])

    def check_arrays(self, launched: set[str]) -> None:
        """Every mention of an array of device buffers is an element in an argument of a CUDA
        call or launch (a constant index; a variable one only in launches and copies, where
        every element allocated here is a candidate), or its declaration; anything else
        (``d[0] = p``, ``f(d)``, ``d[i]`` in a cudaMalloc) may reach an element the region does
        not follow."""
        uses = [u for u in self._uses(self.function.span) if u.name in self.arrays and u.role != "declare"]
        args: dict[tuple, list[HostArg]] = {}
        for arg in self.index.host_args.inside(self.function.span) if uses else ():
            args.setdefault((arg.call, arg.position), []).append(arg)
        for use in uses:
            arg = next((a for a in args.get((use.call, use.position), ()) if a.span.contains(use.span)), None)
            value = _strip(arg.value) if arg is not None and use.role == "subscript" else None
            if isinstance(value, ir.Unary) and value.op == "&" and use.call == "cudaMalloc":
                value = value.operand
            found = _indexed(value) if value is not None else None
            constant = found is not None and found[0] == use.name and isinstance(found[1], ir.IntConst)
            chosen = found is not None and found[0] == use.name and use.call != "cudaMalloc" and \
                (use.call in launched or use.call in ("cudaMemcpy", "cudaMemcpyAsync"))
            given = use.role == "argument" and use.call is not None and self.launching(use.call)
            if not constant and not chosen and not given and not self.element_use(use):
                self._refuse(f"'{use.name}' holds device buffers and is used in a way the transfer rewrite "
                             "cannot follow (only its elements in CUDA calls and launches are: constant "
                             "indices, and variable ones in launches and copies)", use.span, "transfers-escape")

    def _plain(self, site: SourceSpan, callee: str, position: int, text: str,
               where: SourceSpan | None = None) -> str:
        """The region buffer argument ``position`` of the call at ``site`` is (``""`` when it
        names none); a refusal when it uses one in an expression (``d + k``, ``&h``, ``b[0]``)."""
        name = self._variable(site, callee, position)
        if name is None or name not in self.space:
            if any(use.name in self.space or use.name in self.arrays
                   for use in self._arg_uses(site, callee, position)):
                self._refuse(f"cannot follow the buffer expression '{text.strip()}'", where or site,
                             "transfers-escape")
            return ""
        return name

    def _mentions(self, call: ApiCall) -> bool:
        return any((use.name in self.space or use.name in self.arrays) and use.call == call.name
                   for use in self._uses(call.span))

    def _chosen_copy(self, call: ApiCall, position: int, names: list[str]) -> tuple[Op, ...]:
        """A copy to or from ``a[i]`` with a variable ``i`` (``names``: the elements it may
        be): it stays as written, as a device operation reading every candidate that holds a
        value (a download) or updating every one (an upload: the others keep theirs) next to
        host code on the other side; the two operations are one statement (``host_body``'s
        window clipping keeps transfers out from between them)."""
        other = self._plain(call.span, call.name, 1 - position, call.args[1 - position].text)
        if other and self.space[other] == DEVICE:
            self._refuse(f"a device-to-device copy of '{call.args[position].text.strip()}'", call.span,
                         "transfers-copy-kind")
        label = f"{call.name} at line {call.span.line}"
        held = tuple(n for n in names if n in self.has_value)
        if position == 1:  # device to host
            device = Launch(label, held, (), call.span) if held else None
            # a copy shorter than the host buffer updates it: the rest keeps its value
            update = (other,) if other in self.has_value and not self._same_size(call, other) else ()
            host = HostCode(label, update, (other,), call.span) if other else None
            if other:
                self.has_value.add(other)
            return tuple(op for op in (device, host) if op is not None)
        host = HostCode(label, (other,), (), call.span) if other in self.has_value else None
        self.has_value.update(names)
        return tuple(op for op in (host, Launch(label, held, tuple(names), call.span)) if op is not None)

    def _fill_op(self, call: ApiCall, name: str) -> Launch | None:
        """A ``cudaMemset`` of device buffer ``name``: a GPU operation writing it, reading it too
        when it fills only part of a buffer that holds a value (the rest must survive)."""
        if not name:
            return None
        if self.space[name] != DEVICE:
            self._refuse(f"'{call.name}' of host buffer '{name}'", call.span, "transfers-unsupported-call")
        reads = (name,) if name in self.has_value and not self._same_size(call, name) else ()
        self.has_value.add(name)
        return Launch(f"{call.name} at line {call.span.line}", reads, (name,), call.span)

    def _opaque_copy(self, call: ApiCall, dst: str, src: str) -> Op | None:
        """A copy with one side a region buffer and the other something the rewrite does not
        follow (``h[0]`` of an array of pointers, a member, a parameter): it stays where it is,
        as an operation that writes (``dst``) or reads (``src``) that buffer on its side, so
        the buffer's value is known (it used to be dropped, and a later read of a buffer it
        filled was refused as reading nothing)."""
        known = dst or src
        if not known:
            return None
        name = f"cudaMemcpy at line {call.span.line}"
        if known == dst:
            reads = (dst,) if dst in self.has_value else ()
            self.has_value.add(dst)
            op_reads, op_writes = reads, (dst,)
        else:
            op_reads, op_writes = (src,), ()
        if self.space[known] == DEVICE:
            return Launch(name, op_reads, op_writes, call.span)
        return HostCode(name, op_reads, op_writes, call.span)
