"""A helper's allocation count written with its own constants and out-parameters.

XSBench's ``load_mats(int *num_nucs, long n, int *max_num_nucs)`` sizes its array
``malloc(num_mats * (*max_num_nucs) * sizeof(int))``: ``num_mats`` is a local initialized to
``12`` and never changed, ``*max_num_nucs`` the value the helper leaves in its caller's
variable (``&SD.max_num_nucs``). Both are expressible at the call: the local by its literal,
``*max_num_nucs`` by the argument dereferenced (``*(&SD.max_num_nucs)``, the caller's variable
as the call leaves it) provided nothing writes through the parameter after the allocation.
:func:`count_at_call` gives that count, or None when the count names any other local.

Facts come from the cursors (declarations, references, parents), not from the text.
"""

from __future__ import annotations

import re

from s2s.frontend.host.byte_counts import changed_in
from s2s.frontend.host.tree import WRAPPER_KINDS, binary_operator_name

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_ASSIGNING = ("Assign", "MulAssign", "DivAssign", "RemAssign", "AddAssign", "SubAssign",
              "ShlAssign", "ShrAssign", "AndAssign", "XorAssign", "OrAssign")


def count_at_call(tree, function: int, count: str, allocation: int,
                  local_names: set[str], params) -> str | None:
    """``count`` (of the allocation node ``allocation`` in helper ``function``) with each
    constant local replaced by its literal; None when it names another local, or
    dereferences a parameter (``*p``) that the helper writes through, passes on or
    changes after the allocation."""
    constants = {}
    for name in set(_IDENT.findall(count)) & local_names:
        literal = _constant_local(tree, function, name)
        if literal is None:
            return None
        constants[name] = literal
    by_name = {p.spelling: p for p in params if p.spelling}
    for name in set(_IDENT.findall(count)) & set(by_name):
        if re.search(rf"\*\s*{name}\b", count) and (
                changed_in(tree, function, by_name[name]) or
                _written_through_after(tree, function, by_name[name], allocation)):
            return None
    return _IDENT.sub(lambda m: constants.get(m.group(0), m.group(0)), count)


def _constant_local(tree, function: int, name: str) -> str | None:
    """The integer literal a local ``name`` of the function is initialized with, when it is
    the only local of that name and nothing changes it; else None."""
    found = [j for j in range(function, tree.end[function])
             if tree.kinds[j] == "VAR_DECL" and tree.nodes[j].cursor.spelling == name]
    if len(found) != 1:
        return None
    declaration = tree.nodes[found[0]].cursor
    inits = [c for c in tree.children[found[0]] if tree.nodes[c].cursor.kind.is_expression()]
    if len(inits) != 1:
        return None
    value = inits[0]
    while tree.kinds[value] in WRAPPER_KINDS and tree.children[value]:
        value = tree.children[value][-1]
    if tree.kinds[value] != "INTEGER_LITERAL" or changed_in(tree, function, declaration):
        return None
    return tree.ctx.text(tree.nodes[value].cursor).strip()


def _written_through_after(tree, function: int, param, allocation: int) -> bool:
    """Whether, after the allocation, the function writes ``*param`` (assigns, increments,
    takes its address), indexes it, or passes ``param`` itself to a call."""
    start = tree.nodes[allocation].cursor.extent.end.offset
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.referenced != param or \
                tree.nodes[j].cursor.extent.start.offset < start:
            continue
        node = tree.parent[j]
        while node >= 0 and tree.kinds[node] in WRAPPER_KINDS:
            node = tree.parent[node]
        if node < 0:
            continue
        kind = tree.kinds[node]
        if kind in ("CALL_EXPR", "ARRAY_SUBSCRIPT_EXPR"):
            return True
        if kind == "UNARY_OPERATOR" and _is_written(tree, node):
            return True
    return False


def _is_written(tree, node: int) -> bool:
    """Whether the expression ``node`` is assigned, incremented or has its address taken."""
    text = tree.ctx.text(tree.nodes[node].cursor).strip()
    parent = tree.parent[node]
    while parent >= 0 and tree.kinds[parent] in WRAPPER_KINDS:
        node, parent = parent, tree.parent[parent]
    if parent < 0:
        return False
    kind, cursor = tree.kinds[parent], tree.nodes[parent].cursor
    if kind == "COMPOUND_ASSIGNMENT_OPERATOR" or kind == "BINARY_OPERATOR" and \
            binary_operator_name(cursor) in _ASSIGNING:
        return tree.children[parent][0] == node
    if kind == "UNARY_OPERATOR":
        outer = tree.ctx.text(cursor).strip()
        return outer.startswith(("++", "--", "&")) or outer.endswith(("++", "--"))
    return text.startswith(("++", "--")) or text.endswith(("++", "--"))
