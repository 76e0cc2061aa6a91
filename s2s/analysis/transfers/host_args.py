"""What the arguments of the CUDA calls and launches of a transfer region name, split from
:mod:`host_code`: plain buffers, their sizes, and the calls that stay where they are (fills,
copies with one side the rewrite does not follow).

A mixin of ``host_code._Extractor``: the methods read its ``space``, ``sizes``,
``size_trees``, ``has_value``, ``index`` and ``source``. Every fact comes from the AST's
mentions (``VarUse``) and lowered arguments (``HostArg``) of ``s2s.frontend.host_facts``.
"""

from __future__ import annotations

import re

from s2s.analysis.host_eval import same_size
from s2s.analysis.transfers.region import DEVICE, HostCode, Launch, Op
from s2s.model import SourceSpan
from s2s.model.cuda import ApiCall
from s2s.model.host_facts import HostArg, VarUse


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


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
        return _norm(call.args[2].text) == _norm(self.sizes[name])

    def _uses(self, span: SourceSpan) -> list[VarUse]:
        """The variable mentions inside ``span`` (from the AST, ``s2s.frontend.host_facts``)."""
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
        return uses[0].name if len(uses) == 1 and uses[0].role == "address" else None

    def _variable(self, site: SourceSpan, callee: str, position: int) -> str | None:
        """The variable when the argument is exactly one, casts aside (``h``, not ``h[0]``,
        ``h + k``, ``s.h``)."""
        uses = self._arg_uses(site, callee, position)
        return uses[0].name if len(uses) == 1 and uses[0].role == "argument" else None

    def _plain(self, site: SourceSpan, callee: str, position: int, text: str,
               where: SourceSpan | None = None) -> str:
        """The region buffer argument ``position`` of the call at ``site`` is (``""`` when it
        names none); a refusal when it uses one in an expression (``d + k``, ``&h``, ``b[0]``)."""
        name = self._variable(site, callee, position)
        if name is None or name not in self.space:
            if any(use.name in self.space for use in self._arg_uses(site, callee, position)):
                self._refuse(f"cannot follow the buffer expression '{text.strip()}'", where or site,
                             "transfers-escape")
            return ""
        return name

    def _mentions(self, call: ApiCall) -> bool:
        return any(use.name in self.space and use.call == call.name for use in self._uses(call.span))

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
