"""Calls through a local function pointer that can only ever reach functions of the file.

``void (*op)(double *, const double *, int) = axpy;`` then ``op(y, x, n)`` runs ``axpy``'s
kernels: treated as a call of ``op``, the analyses would see an unknown function taking
``y`` and ``x`` (a host access of both) and miss the device work. The call is a call of
``axpy`` when the pointer is a local variable initialized with a function (``axpy`` or
``&axpy``) and every other mention of it in its function is the callee of a call: nothing
assigns it, takes its address or hands it on. A pointer given several functions (a kernel
picked by a ``switch``, then called in the time loop) reaches one of them: the call keeps
the pointer's name and lists them (``CallSite.targets``). Facts from the cursors (the
declaration's initializer, the assignments and the references to it), memoized per tree.
"""

from __future__ import annotations

from dataclasses import replace

from s2s.frontend.core.fast_cursor import spelling
from s2s.frontend.host.tree import host_tree
from s2s.model.host import FunctionRef

_DEFINITION_KINDS = frozenset({"FUNCTION_DECL", "CXX_METHOD", "FUNCTION_TEMPLATE"})
_WRAPPERS = frozenset({"UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR"})
_FUNCTION_KINDS = frozenset({"FUNCTION_DECL", "CXX_METHOD"})


def pointer_callee(tree, i: int) -> str | None:
    """The function the call at tree node ``i`` certainly reaches through a local function
    pointer, else None."""
    targets = pointer_targets(tree, i)
    return targets[0] if targets is not None and len(targets) == 1 else None


def pointer_targets(tree, i: int) -> tuple[str, ...] | None:
    """The functions the call at tree node ``i`` may reach through a local function pointer
    (sorted), when the pointer can hold nothing else (:func:`_targets`); else None."""
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


def _targets(tree, i: int, variable) -> tuple[str, ...] | None:
    """The functions a local function pointer is given (its initializer and every plain
    ``=``: ``stencil = star1``, ``= &star1``), when every other mention of it in its function
    is the callee of a call or an operand of ``==``/``!=`` (cuda-samples transpose's
    ``if (kernel == &copy)``): nothing takes its address, hands it on or gives it anything
    but a function (PRK's ``stencil_t stencil = nothing; switch (...) { case 1: stencil =
    star1; ... }``). A declarator without an initializer gives nothing (a call before an
    assignment would be undefined). None when that does not hold."""
    canon = variable.type.get_canonical()
    if canon.kind.name != "POINTER" or \
            canon.get_pointee().kind.name not in ("FUNCTIONPROTO", "FUNCTIONNOPROTO"):
        return None
    parent = variable.semantic_parent
    if parent is None or parent.kind.name not in _FUNCTION_KINDS | {"FUNCTION_TEMPLATE"}:
        return None  # a global: other functions may change it
    targets = set()
    initializer = [c for c in variable.get_children() if c.kind.name not in ("PARM_DECL", "TYPE_REF")]
    if initializer:
        named = _functions_named(initializer[-1])
        if named is None:
            return None
        targets |= named
    function = i
    while function >= 0 and tree.kinds[function] not in ("FUNCTION_DECL", "CXX_METHOD",
                                                          "FUNCTION_TEMPLATE"):
        function = tree.parent[function]
    if function < 0:
        return None
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.referenced != variable \
                or _is_callee(tree, j) or _is_compared(tree, j):
            continue
        value = _assigned_value(tree, j)
        named = _functions_named(tree.nodes[value].cursor) if value is not None else None
        if named is None:
            return None
        targets |= named
    return tuple(sorted(targets)) or None


def _assigned_value(tree, j: int) -> int | None:
    """The right side's node of the plain ``=`` whose left side is the reference ``j``."""
    child, up = j, tree.parent[j]
    while up >= 0 and tree.kinds[up] in _WRAPPERS:
        child, up = up, tree.parent[up]
    if up < 0 or tree.kinds[up] != "BINARY_OPERATOR" or tree.children[up][:1] != [child] or \
            len(tree.children[up]) != 2 or tree.nodes[up].cursor.binary_operator.name != "Assign":
        return None
    return tree.children[up][1]


def _functions_named(found) -> set[str] | None:
    """The functions an expression names: ``{axpy}`` for ``axpy``, ``&axpy`` or
    ``(op_t)axpy``, both arms' for ``c ? axpy : scal``; None when it may be anything else."""
    while found is not None and found.kind.name in _WRAPPERS | {"UNARY_OPERATOR"}:
        children = list(found.get_children())
        found = children[0] if len(children) == 1 else None
    if found is not None and found.kind.name == "CONDITIONAL_OPERATOR":
        arms = list(found.get_children())[1:]
        named = [_functions_named(arm) for arm in arms]
        return None if len(arms) != 2 or None in named else named[0] | named[1]
    if found is None or found.kind.name != "DECL_REF_EXPR":
        return None
    function = found.referenced
    if function is None or function.kind.name not in _FUNCTION_KINDS:
        return None
    return {function.spelling}


def _is_compared(tree, j: int) -> bool:
    """Whether the reference at node ``j`` is (through wrappers) an operand of ``==`` or
    ``!=``: a read that neither changes the pointer nor lets it escape."""
    up = tree.parent[j]
    while up >= 0 and tree.kinds[up] in _WRAPPERS:
        up = tree.parent[up]
    return up >= 0 and tree.kinds[up] == "BINARY_OPERATOR" and \
        tree.nodes[up].cursor.binary_operator.name in ("EQ", "NE")


def with_launch_targets(ctx, launches) -> tuple:
    """``launches`` with the kernels each launch through a local function pointer can run
    (``Launch.targets``), matched to the host tree's call by extent (a launch in a macro has
    the macro call's extent: not followed); the tree is built only when there is one."""
    wanted = {(la.span.start, la.span.end) for la in launches
              if la.through_pointer and la.span.macro is None}
    if not wanted:
        return tuple(launches)
    tree = host_tree(ctx)
    found = {}
    for i, kind in enumerate(tree.kinds):
        if kind == "CALL_EXPR" and tree.extent(i) in wanted:
            found.setdefault(tree.extent(i), pointer_targets(tree, i))
    return tuple(replace(la, targets=found.get((la.span.start, la.span.end)) or ())
                 for la in launches)


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
        child, up, arm = j, tree.parent[j], False
        while up >= 0 and (kinds[up] in _WRAPPERS | {"UNARY_OPERATOR"} or
                           kinds[up] == "CONDITIONAL_OPERATOR" and
                           tree.children[up][:1] != [child]):  # an arm, not the condition
            arm = arm or kinds[up] == "CONDITIONAL_OPERATOR"
            child, up = up, tree.parent[up]
        if up >= 0 and kinds[up] == "VAR_DECL" and pointer_callee_of(tree, j, nodes[up].cursor):
            continue
        if up >= 0 and kinds[up] == "BINARY_OPERATOR" and _assigned_to(tree, up, j):
            continue
        call = index = None
        if up >= 0 and kinds[up] == "CALL_EXPR" and not arm:  # (a wrapper binds one function)
            call = nodes[up].cursor.spelling or None
            index = tree.children[up].index(child) - 1
        out.append(FunctionRef(function.spelling, tree.span(j), call, index))
    return tuple(out)


def pointer_callee_of(tree, j: int, variable) -> tuple[str, ...] | None:
    """:func:`pointer_targets` for the pointer ``variable`` declared around node ``j``."""
    memo = tree.ctx.memo("callees.pointer", lambda _ctx: {})
    key = variable.hash
    if key not in memo:
        memo[key] = _targets(tree, j, variable)
    return memo[key]


def _assigned_to(tree, assignment: int, j: int) -> bool:
    """Whether the function mention ``j`` is the value of the ``=`` node ``assignment`` to a
    local pointer whose calls :func:`pointer_targets` follows."""
    kids = tree.children[assignment]
    if len(kids) != 2 or tree.nodes[assignment].cursor.binary_operator.name != "Assign":
        return False
    left = kids[0]
    while tree.kinds[left] in _WRAPPERS and tree.children[left]:
        left = tree.children[left][0]
    variable = tree.nodes[left].cursor.referenced if tree.kinds[left] == "DECL_REF_EXPR" \
        else None
    return variable is not None and variable.kind.name == "VAR_DECL" and \
        pointer_callee_of(tree, j, variable) is not None
