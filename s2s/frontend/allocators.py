"""Element counts of heap arrays that real programs do not spell in the allocation call.

``malloc(n * sizeof(double))`` gives its count on the spot; code written by others often does
not (issue 17, item 2):

* the byte size is held in a variable first: ``size_t bytes = n * sizeof(double); double *a =
  malloc(bytes);`` -- the count comes from the variable's only definition, its initializer,
  when nothing in the function assigns the variable again (:func:`single_definition`);
* a helper returns the allocation: ``static float *make(int n) { return malloc(n *
  sizeof(float)); }`` and ``float *c = make(n);`` -- a return-value summary of the helper (its
  one ``return`` is an allocation whose count uses only its parameters and globals) is
  instantiated at each call with the call's arguments (:func:`returned_allocations`,
  :func:`helper_allocation`).

Facts come from libclang's cursors (declarations, references, parents), not from the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.model import Expr, HostAllocation

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_SIMPLE = re.compile(r"[A-Za-z_]\w*|\d+[uUlL]*")
_ASSIGN_OPS = ("Assign", "MulAssign", "DivAssign", "RemAssign", "AddAssign", "SubAssign",
               "ShlAssign", "ShrAssign", "AndAssign", "XorAssign", "OrAssign")


def single_definition(tree, at: int, cursor):
    """The initializer of the local variable ``cursor`` (an argument of the call at node
    ``at``) names, when that is its only value in the function (no assignment, increment or
    address taken); else None."""
    from s2s.frontend.host import _unwrap

    ref = _unwrap(cursor)
    if ref.kind.name != "DECL_REF_EXPR":
        return None
    declaration = ref.referenced
    if declaration is None or declaration.kind.name != "VAR_DECL":
        return None
    inits = [c for c in declaration.get_children() if c.kind.is_expression()]
    if len(inits) != 1:
        return None
    function = _enclosing_function(tree, at)
    if function is None or not _within(tree, function, declaration) or \
            _changed_in(tree, function, declaration):
        return None
    return inits[0]


def _enclosing_function(tree, at: int) -> int | None:
    """Index of the tree node of the function whose body holds node ``at`` (up its parents)."""
    from s2s.frontend.host import FUNCTION_KINDS

    node = tree.parent[at]
    while node >= 0 and tree.kinds[node] not in FUNCTION_KINDS:
        node = tree.parent[node]
    return node if node >= 0 else None


def _within(tree, function: int, declaration) -> bool:
    """The declaration is one of the function's own (a local, not a global)."""
    start, end = tree.extent(function)
    return start <= declaration.extent.start.offset < end


def _changed_in(tree, function: int, declaration) -> bool:
    """Whether any statement of the function assigns, increments or takes the address of
    the variable after its declaration."""
    from s2s.frontend.host import _binop

    name = declaration.spelling
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.spelling != name:
            continue
        if tree.nodes[j].cursor.referenced != declaration:
            continue
        p = tree.parent[j]
        if p < 0 or not tree.children[p] or tree.children[p][0] != j:
            continue
        kind, cursor = tree.kinds[p], tree.nodes[p].cursor
        if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and \
                (_binop(cursor) in _ASSIGN_OPS or kind == "COMPOUND_ASSIGNMENT_OPERATOR"):
            return True
        if kind == "UNARY_OPERATOR":
            text = tree.ctx.text(cursor)
            if text.startswith(("++", "--", "&")) or text.endswith(("++", "--")):
                return True
    return False


@dataclass(frozen=True)
class ReturnedAllocation:
    """A function that returns a fresh array of ``count`` elements (in its parameters)."""

    params: tuple[str, ...]
    count: str
    element_type: str
    kind: str


def returned_allocations(tree) -> dict[str, ReturnedAllocation]:
    """Summaries of the file's functions whose one ``return`` hands back an allocation."""
    from s2s.frontend.host import FUNCTION_KINDS

    summaries = {}
    for i, kind in enumerate(tree.kinds):
        if kind not in FUNCTION_KINDS or not tree.nodes[i].cursor.is_definition():
            continue
        summary = _summary(tree, i)
        if summary is not None:
            summaries[tree.nodes[i].cursor.spelling] = summary
    return summaries


def _summary(tree, function: int) -> ReturnedAllocation | None:
    from s2s.frontend.host import WRAPPER_KINDS, _malloc, _new_array

    returns = [j for j in range(function, tree.end[function]) if tree.kinds[j] == "RETURN_STMT"]
    if len(returns) != 1 or not tree.children[returns[0]]:
        return None
    value = tree.children[returns[0]][0]
    while tree.kinds[value] in WRAPPER_KINDS and tree.children[value]:
        value = tree.children[value][-1]
    cursor = tree.nodes[function].cursor
    target = ("<returned>", cursor.result_type)
    if tree.kinds[value] == "CALL_EXPR" and tree.nodes[value].cursor.spelling in (
            "malloc", "calloc", "aligned_alloc"):
        found = _malloc(tree, value, target)
    elif tree.kinds[value] == "CXX_NEW_EXPR":
        found = _new_array(tree, value, target)
    else:
        return None
    if found is None or found.count is None:
        return None
    params = tuple(a.spelling for a in cursor.get_arguments())
    local_names = {tree.nodes[j].cursor.spelling for j in range(function, tree.end[function])
                   if tree.kinds[j] == "VAR_DECL"} - set(params)
    if any(name in local_names for name in _IDENT.findall(found.count.text)):
        return None  # the count uses the helper's own locals: not expressible at the call
    return ReturnedAllocation(params, found.count.text, found.element_type, found.kind)


def helper_allocation(tree, i: int, summaries: dict[str, ReturnedAllocation]
                      ) -> HostAllocation | None:
    """The allocation a call to a summarized helper makes, with the call's arguments."""
    from s2s.frontend.host import _target

    cursor = tree.nodes[i].cursor
    summary = summaries.get(cursor.spelling)
    if summary is None:
        return None
    target = _target(tree, i)
    args = [tree.ctx.text(a) for a in cursor.get_arguments()]
    if target is None or len(args) != len(summary.params):
        return None
    binding = {p: a if _SIMPLE.fullmatch(a.strip()) else f"({a})"
               for p, a in zip(summary.params, args, strict=True)}
    count = _IDENT.sub(lambda m: binding.get(m.group(0), m.group(0)), summary.count)
    span = tree.span(i)
    return HostAllocation(target[0], summary.kind, summary.element_type, span,
                          tree.nodes[i].function, Expr(count, span), None)
