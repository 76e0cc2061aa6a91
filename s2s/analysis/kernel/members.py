"""Pointer members of by-value struct parameters as buffers of their own (issue 29, item 4).

``__global__ void sample(Inputs in, SimulationData GSD) { ... GSD.samples[i] = e; }``
(XSBench): the kernel's buffers are held in a struct the host fills (often in a helper) and
passes by value. The access interpreter follows pointer parameters only; a subscript of a
struct's member is a pointer of unknown target to it, so such a kernel was "not analysable".

A by-value copy of a struct holds the caller's pointers, so ``GSD.samples`` is, inside the
kernel, exactly the pointer the host's ``GSD.samples`` holds at the launch. The body is
rewritten so that each mention ``GSD.m`` of a pointer member becomes a variable ``GSD.m``,
and a pointer parameter of that name is appended (with the member's pointee size and
constness): every analysis of pointer parameters then holds for it, and the host side names
the buffer ``<argument>.m``. This is done only where the struct parameter is mentioned
through ``.member`` alone (never passed whole, never assigned, its address never taken):
otherwise a callee could reach a member this rewrite did not see, and the body is left as it
was (:func:`flatten_members` says why). Members of members (``GSD.grid.data``) stay what
they were: pointers of unknown target (a read of any buffer, a write the analysis refuses).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from s2s.model import kernel_ir as ir


@dataclass(frozen=True)
class Flattened:
    """A body with its struct parameters' pointer members as parameters ``s.m``.

    ``members``: (struct parameter, member) of each appended parameter, in order; ``why``:
    why a struct parameter with pointer members was not flattened ('' when none was left)."""

    body: ir.KernelBody
    members: tuple[tuple[str, str], ...] = ()
    why: str = ""


def member_param(struct: str, member: str) -> str:
    """The name of the parameter standing for ``struct.member`` (also the host's buffer
    name when the launch passes the variable ``struct``)."""
    return f"{struct}.{member}"


def flatten_members(body: ir.KernelBody) -> Flattened:
    """``body`` with every pointer member ``s.m`` of a by-value struct parameter ``s`` a
    pointer parameter of its own (see the module's docstring)."""
    structs = {p.name for p in body.params if p.kind == "other"}
    if not structs:
        return Flattened(body)
    found: dict[tuple[str, str], ir.Member] = {}
    whole: dict[str, str] = {}
    _scan(body.body, structs, found, whole)
    pointered = {s for s, _m in found}
    refused = {s: why for s, why in whole.items() if s in pointered}
    keep = {key: m for key, m in found.items() if key[0] not in refused}
    why = "; ".join(f"struct parameter '{s}' {w}" for s, w in sorted(refused.items()))
    if not keep:
        return Flattened(body, (), why)
    rewritten = _rewrite(body.body, {s for s, _m in keep})
    params = body.params + tuple(
        ir.IrParam(member_param(s, m), "pointer", member.elem_size, member.const)
        for (s, m), member in keep.items())
    return Flattened(dataclasses.replace(body, params=params, body=rewritten),
                     tuple(keep), why)


def _is_struct_member(node, structs: set[str]) -> bool:
    return isinstance(node, ir.Member) and not node.arrow and \
        isinstance(node.base, ir.Var) and node.base.name in structs


def _scan(node, structs: set[str], found: dict, whole: dict) -> None:
    """Pointer members of ``structs`` mentioned in ``node`` (into ``found``), and the struct
    parameters mentioned otherwise, with how (into ``whole``)."""
    if _is_struct_member(node, structs):
        if node.kind == "pointer":
            found.setdefault((node.base.name, node.name), node)
        return
    if isinstance(node, ir.Var):
        if node.name in structs:
            whole.setdefault(node.name, "is used as a whole (passed, assigned or its address "
                             "taken): a callee could reach its members")
        return
    if isinstance(node, (tuple, list)):
        for item in node:
            _scan(item, structs, found, whole)
    elif dataclasses.is_dataclass(node):
        for field in dataclasses.fields(node):
            if field.name != "span":
                _scan(getattr(node, field.name), structs, found, whole)


def _rewrite(node, structs: set[str]):
    """``node`` with each pointer member mention of ``structs`` a :class:`ir.Var`."""
    if _is_struct_member(node, structs) and node.kind == "pointer":
        return ir.Var(member_param(node.base.name, node.name))
    if isinstance(node, (tuple, list)):
        items = [_rewrite(item, structs) for item in node]
        if all(new is old for new, old in zip(items, node, strict=True)):
            return node
        return type(node)(items)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {}
        for field in dataclasses.fields(node):
            if field.name == "span":
                continue
            value = getattr(node, field.name)
            new = _rewrite(value, structs)
            if new is not value:
                changes[field.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node
