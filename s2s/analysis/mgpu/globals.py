"""Writes of a kernel to variables that are neither its locals nor its parameters.

The access model covers pointer parameters only. A kernel that assigns to a ``__device__``
variable (``counter = i``, ``flags[i] = 1``, ``atomicAdd(&total, x)``) changes memory the
runtime does not track: partitioned over devices, each device would change its own copy (or,
on the emulator, one shared copy concurrently), and the host would see one of them. Such a
kernel is therefore not partitioned. A name counts as written when it is the root of an
assignment target, of ``++``/``--``, or has its address taken (``&x`` is how atomics
write); names declared in the function (or a called ``__device__`` function) are local.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from s2s.model import kernel_ir as ir
from s2s.model.kernel_ir import KernelBody

_WRITING_UNARY = frozenset({"&", "pre++", "pre--", "post++", "post--"})


def global_write(body: KernelBody, functions: dict[str, KernelBody]) -> str | None:
    """``"writes device variable 'x'"`` for the first such write reachable from ``body``
    (through called ``__device__`` functions), None if there is none."""
    return _scan(body, functions, set())


def _scan(body: KernelBody, functions: dict[str, KernelBody], seen: set[str]) -> str | None:
    if body.name in seen:
        return None
    seen.add(body.name)
    local = {p.name for p in body.params} | set(body.template_params) | _declared(body.body)
    for node in _nodes(body.body):
        target = None
        if isinstance(node, ir.Assign):
            target = node.target
        elif isinstance(node, ir.Unary) and node.op in _WRITING_UNARY:
            target = node.operand
        if target is not None:
            root = _root(target)
            if isinstance(root, ir.Var) and root.name not in local:
                return f"writes device variable '{root.name}' (not tracked by the runtime)"
        if isinstance(node, ir.Call) and node.device and node.name in functions:
            found = _scan(functions[node.name], functions, seen)
            if found:
                return found
    return None


def _root(expr):
    """The variable an lvalue is part of: ``a[i].x`` -> ``a``; ``*p`` -> ``p``."""
    while True:
        if isinstance(expr, ir.Index):
            expr = expr.base
        elif isinstance(expr, ir.Member) and not expr.arrow:
            expr = expr.base
        elif isinstance(expr, ir.Cast):
            expr = expr.operand
        else:
            return expr


def _declared(node) -> set[str]:
    return {n.name for n in _nodes(node) if isinstance(n, ir.Decl)}


def _nodes(node):
    """Every IR node under ``node`` (itself included), depth first."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (tuple, list)):
            stack.extend(item)
            continue
        if not is_dataclass(item):
            continue
        yield item
        for f in fields(item):
            if f.name != "span":
                stack.append(getattr(item, f.name))
