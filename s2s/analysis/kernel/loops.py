"""Syntactic facts about loop bodies that the access interpreter needs before running them.

A loop is interpreted once, at a symbolic iteration; for that the interpreter must know which
variables the body changes and which of them are induction variables with a loop-invariant
step (``i += blockDim.x * gridDim.x``), and whether the body can leave the loop early.
"""

from __future__ import annotations

import dataclasses

from s2s.analysis.affine import ONE, Poly
from s2s.model import kernel_ir as ir

INC_DEC = frozenset({"pre++", "pre--", "post++", "post--"})


def _children(node):
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            if f.name != "span":
                yield getattr(node, f.name)
    elif isinstance(node, tuple):
        yield from node


def walk(node):
    """Every IR node under ``node`` (pre-order), ``node`` included."""
    stack = [node]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        if isinstance(item, tuple):
            stack.extend(reversed(item))
            continue
        if not dataclasses.is_dataclass(item):
            continue
        yield item
        stack.extend(reversed(list(_children(item))))


def assigned_names(node) -> set[str]:
    """Variables assigned (``=``, compound, ``++``/``--``) under ``node``, minus those declared
    there (a body's own declarations start afresh in every iteration)."""
    assigned, declared = set(), set()
    for item in walk(node):
        if isinstance(item, ir.Assign) and isinstance(item.target, ir.Var):
            assigned.add(item.target.name)
        elif isinstance(item, ir.Unary) and item.op in INC_DEC and isinstance(item.operand, ir.Var):
            assigned.add(item.operand.name)
        elif isinstance(item, ir.Decl):
            declared.add(item.name)
    return assigned - declared


def used_names(node) -> set[str]:
    return {item.name for item in walk(node) if isinstance(item, ir.Var)}


def escapes(body) -> bool:
    """Whether the body can end the loop early (``break`` not in a nested loop, or ``return``)."""
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, (ir.Break, ir.Return)):
            return True
        if isinstance(item, (ir.For, ir.While)):
            stack.extend(x for x in walk(item.body) if isinstance(x, ir.Return))
            continue
        if isinstance(item, ir.Block):
            stack.extend(item.stmts)
        elif isinstance(item, ir.If):
            stack.extend(x for x in (item.then, item.other) if x is not None)
        elif isinstance(item, ir.OpaqueStmt):
            stack.extend(item.children)
    return False


def _step_of(expr, name: str):
    """The step of ``expr`` if it is ``name += e``, ``name = name + e``, ``name++`` ..."""
    if isinstance(expr, ir.Unary) and expr.op in INC_DEC and expr.operand == ir.Var(name):
        return ONE if "++" in expr.op else -ONE
    if not isinstance(expr, ir.Assign) or expr.target != ir.Var(name):
        return None
    if expr.op == "+=":
        return expr.value
    if expr.op == "-=":
        return ir.Unary("-", expr.value)
    value = expr.value
    if expr.op == "=" and isinstance(value, ir.Binary) and value.op in ("+", "-"):
        if value.lhs == ir.Var(name):
            return value.rhs if value.op == "+" else ir.Unary("-", value.rhs)
        if value.op == "+" and value.rhs == ir.Var(name):
            return value.lhs
    return None


def induction_steps(body, step, modified: set[str]) -> dict[str, object]:
    """Induction variables -> step (an IR expression, or a Poly for ``++``/``--``).

    A variable qualifies when its only assignment is one unconditional step, either the
    ``for`` increment or a top-level statement of a body without ``continue``, and the step
    reads no variable the loop modifies.
    """
    sites: dict[str, list] = {}
    for item in walk((body, step)):
        for name in _targets(item):
            sites.setdefault(name, []).append(item)
    has_continue = any(isinstance(x, ir.Continue) for x in walk(body))
    top = [s.expr for s in (body.stmts if isinstance(body, ir.Block) else (body,))
           if isinstance(s, ir.ExprStmt)]
    steps = {}
    for name in modified:
        found = sites.get(name, [])
        if len(found) != 1:
            continue
        site = found[0]
        if site is step or (not has_continue and any(site is t for t in top)):
            delta = _step_of(site, name)
            if delta is None:
                continue
            if isinstance(delta, Poly) or not (used_names(delta) & modified):
                steps[name] = delta
    return steps


def _targets(item):
    if isinstance(item, ir.Assign) and isinstance(item.target, ir.Var):
        yield item.target.name
    elif isinstance(item, ir.Unary) and item.op in INC_DEC and isinstance(item.operand, ir.Var):
        yield item.operand.name
