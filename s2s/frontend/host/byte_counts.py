"""Element counts from a byte size held in a variable first.

``size_t bytes = n * sizeof(double); double *a = malloc(bytes);``: the count comes from the
variable's only definition, its initializer (or its one plain assignment before the call), when
nothing in the function assigns, increments or takes the address of the variable again
(:func:`single_definition`). :mod:`s2s.frontend.host.alloc` asks it for a ``malloc`` whose size
is a plain variable; :mod:`s2s.frontend.host.allocators` shares :func:`declared_within` and
:func:`changed_in` for the helpers that return allocations.

Facts come from libclang's cursors (declarations, references, parents), not from the text.
"""

from __future__ import annotations

from s2s.frontend.core.context import FUNCTION_KINDS
from s2s.frontend.host.tree import binary_operator_name, unwrap_conversions

_ASSIGN_OPS = ("Assign", "MulAssign", "DivAssign", "RemAssign", "AddAssign", "SubAssign",
               "ShlAssign", "ShrAssign", "AndAssign", "XorAssign", "OrAssign")


def single_definition(tree, at: int, cursor):
    """The initializer of the local variable ``cursor`` (an argument of the call at node
    ``at``) names, when that is its only value in the function (no assignment, increment or
    address taken); else None."""
    ref = unwrap_conversions(cursor)
    if ref.kind.name != "DECL_REF_EXPR":
        return None
    declaration = ref.referenced
    if declaration is None or declaration.kind.name != "VAR_DECL":
        return None
    inits = [c for c in declaration.get_children() if c.kind.is_expression()]
    function = _enclosing_function(tree, at)
    if len(inits) > 1 or function is None or not declared_within(tree, function, declaration):
        return None
    if not inits:       # ``size_t bytes;`` then ``bytes = n * sizeof(double);`` once
        return _assigned_once(tree, function, declaration, at)
    if changed_in(tree, function, declaration):
        return None
    return inits[0]


def _assigned_once(tree, function: int, declaration, at: int):
    """The value of the one plain assignment to the variable declared without a value, when
    it is a statement of a block that holds the call at node ``at``, before it, and nothing
    else in the function changes the variable; else None."""
    found = []
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.referenced != declaration:
            continue
        p = tree.parent[j]
        if p >= 0 and tree.kinds[p] == "BINARY_OPERATOR" and tree.children[p][0] == j and \
                binary_operator_name(tree.nodes[p].cursor) == "Assign":
            found.append(p)
    if len(found) != 1 or changed_in(tree, function, declaration, ignore=found[0]):
        return None
    assign = found[0]
    block = tree.parent[assign]
    if block < 0 or tree.kinds[block] != "COMPOUND_STMT" or \
            not tree.extent(assign)[1] <= tree.extent(at)[0] or \
            not tree.extent(block)[0] <= tree.extent(at)[0] < tree.extent(block)[1]:
        return None
    return tree.nodes[tree.children[assign][1]].cursor


def _enclosing_function(tree, at: int) -> int | None:
    """Index of the tree node of the function whose body holds node ``at`` (up its parents)."""
    node = tree.parent[at]
    while node >= 0 and tree.kinds[node] not in FUNCTION_KINDS:
        node = tree.parent[node]
    return node if node >= 0 else None


def declared_within(tree, function: int, declaration) -> bool:
    """The declaration is one of the function's own (a local, not a global)."""
    start, end = tree.extent(function)
    return start <= declaration.extent.start.offset < end


def changed_in(tree, function: int, declaration, ignore: int = -1) -> bool:
    """Whether any statement of the function assigns, increments or takes the address of
    the variable after its declaration (the assignment at node ``ignore`` aside)."""
    name = declaration.spelling
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.spelling != name:
            continue
        if tree.nodes[j].cursor.referenced != declaration:
            continue
        p = tree.parent[j]
        if p < 0 or p == ignore or not tree.children[p] or tree.children[p][0] != j:
            continue
        kind, cursor = tree.kinds[p], tree.nodes[p].cursor
        if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and \
                (binary_operator_name(cursor) in _ASSIGN_OPS or kind == "COMPOUND_ASSIGNMENT_OPERATOR"):
            return True
        if kind == "UNARY_OPERATOR":
            text = tree.ctx.text(cursor)
            if text.startswith(("++", "--", "&")) or text.endswith(("++", "--")):
                return True
    return False
