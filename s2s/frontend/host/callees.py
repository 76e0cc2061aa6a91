"""Calls through a local function pointer that can only ever reach one function.

``void (*op)(double *, const double *, int) = axpy;`` then ``op(y, x, n)`` runs ``axpy``'s
kernels: treated as a call of ``op``, the analyses would see an unknown function taking
``y`` and ``x`` (a host access of both) and miss the device work. The call is a call of
``axpy`` when the pointer is a local variable initialized with a function (``axpy`` or
``&axpy``) and every other mention of it in its function is the callee of a call: nothing
assigns it, takes its address or hands it on. Facts from the cursors (the declaration's
initializer and the references to it), memoized per tree.
"""

from __future__ import annotations

from s2s.frontend.core.fast_cursor import spelling
from s2s.model.host import FunctionRef

_DEFINITION_KINDS = frozenset({"FUNCTION_DECL", "CXX_METHOD", "FUNCTION_TEMPLATE"})
_WRAPPERS = frozenset({"UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR"})
_FUNCTION_KINDS = frozenset({"FUNCTION_DECL", "CXX_METHOD"})


def pointer_callee(tree, i: int) -> str | None:
    """The function the call at tree node ``i`` certainly reaches through a local function
    pointer, else None."""
    kids = tree.children[i]
    if not kids:
        return None
    callee = kids[0]
    while tree.kinds[callee] in _WRAPPERS and tree.children[callee]:
        callee = tree.children[callee][0]
    if tree.kinds[callee] != "DECL_REF_EXPR":
        return None
    variable = tree.nodes[callee].cursor.referenced
    if variable is None or variable.kind.name != "VAR_DECL":
        return None
    return pointer_callee_of(tree, i, variable)


def _only_target(tree, i: int, variable) -> str | None:
    canon = variable.type.get_canonical()
    if canon.kind.name != "POINTER" or \
            canon.get_pointee().kind.name not in ("FUNCTIONPROTO", "FUNCTIONNOPROTO"):
        return None
    target = _initializer_function(variable)
    if target is None:
        return None
    function = i
    while function >= 0 and tree.kinds[function] not in ("FUNCTION_DECL", "CXX_METHOD",
                                                          "FUNCTION_TEMPLATE"):
        function = tree.parent[function]
    if function < 0:
        return None
    for j in range(function, tree.end[function]):
        if tree.kinds[j] == "DECL_REF_EXPR" and tree.nodes[j].cursor.referenced == variable \
                and not _is_callee(tree, j):
            return None
    return target


def _initializer_function(variable) -> str | None:
    """``axpy`` for a declaration ``... = axpy`` or ``... = &axpy``."""
    found = None
    for child in variable.get_children():
        kind = child.kind.name
        if kind in ("PARM_DECL", "TYPE_REF"):
            continue
        found = child
    while found is not None and found.kind.name in _WRAPPERS | {"UNARY_OPERATOR"}:
        children = list(found.get_children())
        found = children[0] if len(children) == 1 else None
    if found is None or found.kind.name != "DECL_REF_EXPR":
        return None
    function = found.referenced
    if function is None or function.kind.name not in _FUNCTION_KINDS:
        return None
    return function.spelling


def _is_callee(tree, j: int) -> bool:
    """Whether the reference at node ``j`` is (through wrappers) the callee of a call."""
    child, up = j, tree.parent[j]
    while up >= 0 and tree.kinds[up] in _WRAPPERS:
        child, up = up, tree.parent[up]
    return up >= 0 and tree.kinds[up] == "CALL_EXPR" and tree.children[up][:1] == [child]


def function_refs(tree) -> tuple[FunctionRef, ...]:
    """Every mention of a function defined in the file whose address is taken: not the
    callee of a call, not the initializer of a local pointer :func:`pointer_callee`
    follows. An argument of a call records the call and its position."""
    kinds, nodes = tree.kinds, tree.nodes
    defined = {spelling(nodes[i].cursor) for i, kind in enumerate(kinds)
               if kind in _DEFINITION_KINDS}
    out = []
    for j, kind in enumerate(kinds):
        if kind != "DECL_REF_EXPR" or _is_callee(tree, j):
            continue
        cursor = nodes[j].cursor
        if spelling(cursor) not in defined:
            continue
        function = cursor.referenced
        if function is None or function.kind.name not in _FUNCTION_KINDS:
            continue
        child, up = j, tree.parent[j]
        while up >= 0 and kinds[up] in _WRAPPERS | {"UNARY_OPERATOR"}:
            child, up = up, tree.parent[up]
        if up >= 0 and kinds[up] == "VAR_DECL" and pointer_callee_of(tree, j, nodes[up].cursor):
            continue
        call = index = None
        if up >= 0 and kinds[up] == "CALL_EXPR":
            call = nodes[up].cursor.spelling or None
            index = tree.children[up].index(child) - 1
        out.append(FunctionRef(function.spelling, tree.span(j), call, index))
    return tuple(out)


def pointer_callee_of(tree, j: int, variable) -> str | None:
    """:func:`pointer_callee` for the pointer ``variable`` declared around node ``j``."""
    memo = tree.ctx.memo("callees.pointer", lambda _ctx: {})
    key = variable.hash
    if key not in memo:
        memo[key] = _only_target(tree, j, variable)
    return memo[key]
