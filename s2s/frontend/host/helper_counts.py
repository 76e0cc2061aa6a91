"""A helper's allocation count written with its own constants and out-parameters.

XSBench's ``load_mats(int *num_nucs, long n, int *max_num_nucs)`` sizes its array
``malloc(num_mats * (*max_num_nucs) * sizeof(int))``: ``num_mats`` is a local initialized to
``12`` and never changed, ``*max_num_nucs`` the value the helper leaves in its caller's
variable (``&SD.max_num_nucs``). RSBench's ``generate_poles`` sizes by a local ``max_poles``
computed in a loop and then stored, ``*max_num_poles = max_poles;``: unchanged after that
store, it is ``*max_num_poles``. All are expressible at the call: a constant local by its literal,
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
    constant local replaced by its literal, a local stored to an out-parameter by ``(*p)``;
    None when it names another local, or
    dereferences a parameter (``*p``) that the helper writes through, passes on or
    changes after the allocation."""
    constants = {}
    by_name = {p.spelling: p for p in params if p.spelling}
    for name in set(_IDENT.findall(count)) & local_names:
        literal = _constant_local(tree, function, name) or \
            _stored_to_out_param(tree, function, name, allocation, by_name)
        if literal is None:
            return None
        constants[name] = literal
    count = _IDENT.sub(lambda m: constants.get(m.group(0), m.group(0)), count)
    for name in set(_IDENT.findall(count)) & set(by_name):
        if _dereferenced(count, name, by_name[name]) and (
                changed_in(tree, function, by_name[name]) or
                _written_through_after(tree, function, by_name[name], allocation)):
            return None
    return count


def _dereferenced(count: str, name: str, param) -> bool:
    """Whether ``count`` reads ``*name`` of a pointer parameter (``rows * (*widest)``), not
    a product (``width * height``): the ``*`` follows an operator, ``(`` or nothing."""
    if param.type.get_canonical().kind.name != "POINTER":
        return False
    return re.search(rf"(?:^|[-+*/%(,])\s*\*\s*{re.escape(name)}\b", count.strip()) is not None


def _stored_to_out_param(tree, function: int, name: str, allocation: int,
                         params: dict) -> str | None:
    """``(*p)`` for a local ``name`` that the helper stores to an out-parameter before the
    allocation (``*max_num_poles = max_poles;`` then ``malloc(n * max_poles * ...)``, RSBench)
    and changes neither after that store: the caller's variable then holds the count's
    value. None otherwise (also for a store under a branch or loop of its own)."""
    declarations = [j for j in range(function, tree.end[function])
                    if tree.kinds[j] == "VAR_DECL" and tree.nodes[j].cursor.spelling == name]
    if len(declarations) != 1:
        return None
    local = tree.nodes[declarations[0]].cursor
    start = tree.nodes[allocation].cursor.extent.start.offset
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "BINARY_OPERATOR" or \
                binary_operator_name(tree.nodes[j].cursor) != "Assign" or \
                len(tree.children[j]) != 2:
            continue
        left, right = (_bare(tree, c) for c in tree.children[j])
        store = tree.nodes[j].cursor.extent
        if tree.kinds[right] != "DECL_REF_EXPR" or tree.nodes[right].cursor.referenced != local \
                or tree.kinds[left] != "UNARY_OPERATOR" or not tree.children[left] or \
                store.end.offset > start or \
                not tree.ctx.text(tree.nodes[left].cursor).lstrip().startswith("*"):
            continue
        target = _bare(tree, tree.children[left][0])
        param = tree.nodes[target].cursor.referenced if tree.kinds[target] == "DECL_REF_EXPR" \
            else None
        if param is None or params.get(param.spelling) != param or \
                _branch_between(tree, function, j) or \
                _assigned_after(tree, function, local, store.end.offset) or \
                _written_through_after(tree, function, param, j):
            continue
        return f"(*{param.spelling})"
    return None


def _bare(tree, node: int) -> int:
    while tree.kinds[node] in WRAPPER_KINDS and tree.children[node]:
        node = tree.children[node][-1]
    return node


def _branch_between(tree, function: int, node: int) -> bool:
    """Whether ``node`` lies under a branch or loop of the function (it may not run)."""
    node = tree.parent[node]
    while node > function:
        if tree.kinds[node] in ("IF_STMT", "FOR_STMT", "WHILE_STMT", "DO_STMT", "SWITCH_STMT",
                                "CONDITIONAL_OPERATOR"):
            return True
        node = tree.parent[node]
    return False


def _assigned_after(tree, function: int, declaration, offset: int) -> bool:
    """Whether the local is assigned, incremented or has its address taken after ``offset``."""
    for j in range(function, tree.end[function]):
        if tree.kinds[j] == "DECL_REF_EXPR" and tree.nodes[j].cursor.referenced == declaration \
                and tree.nodes[j].cursor.extent.start.offset >= offset:
            parent = tree.parent[j]
            if parent >= 0 and tree.kinds[parent] == "UNARY_OPERATOR" and \
                    tree.ctx.text(tree.nodes[parent].cursor).lstrip().startswith("*"):
                continue
            if parent >= 0 and _is_written(tree, j):
                return True
    return False


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
