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

from s2s.model import HostAllocation
from s2s.model.host import AllocatingHelper, HelperCall

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_ASSIGN_OPS = ("Assign", "MulAssign", "DivAssign", "RemAssign", "AddAssign", "SubAssign",
               "ShlAssign", "ShrAssign", "AndAssign", "XorAssign", "OrAssign")


def single_definition(tree, at: int, cursor):
    """The initializer of the local variable ``cursor`` (an argument of the call at node
    ``at``) names, when that is its only value in the function (no assignment, increment or
    address taken); else None."""
    from s2s.frontend.host.functions import _unwrap

    ref = _unwrap(cursor)
    if ref.kind.name != "DECL_REF_EXPR":
        return None
    declaration = ref.referenced
    if declaration is None or declaration.kind.name != "VAR_DECL":
        return None
    inits = [c for c in declaration.get_children() if c.kind.is_expression()]
    function = _enclosing_function(tree, at)
    if len(inits) > 1 or function is None or not _within(tree, function, declaration):
        return None
    if not inits:       # ``size_t bytes;`` then ``bytes = n * sizeof(double);`` once
        return _assigned_once(tree, function, declaration, at)
    if _changed_in(tree, function, declaration):
        return None
    return inits[0]


def _assigned_once(tree, function: int, declaration, at: int):
    """The value of the one plain assignment to the variable declared without a value, when
    it is a statement of a block that holds the call at node ``at``, before it, and nothing
    else in the function changes the variable; else None."""
    from s2s.frontend.host.functions import _binop

    found = []
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.referenced != declaration:
            continue
        p = tree.parent[j]
        if p >= 0 and tree.kinds[p] == "BINARY_OPERATOR" and tree.children[p][0] == j and \
                _binop(tree.nodes[p].cursor) == "Assign":
            found.append(p)
    if len(found) != 1 or _changed_in(tree, function, declaration, ignore=found[0]):
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
    from s2s.frontend.host.functions import FUNCTION_KINDS

    node = tree.parent[at]
    while node >= 0 and tree.kinds[node] not in FUNCTION_KINDS:
        node = tree.parent[node]
    return node if node >= 0 else None


def _within(tree, function: int, declaration) -> bool:
    """The declaration is one of the function's own (a local, not a global)."""
    start, end = tree.extent(function)
    return start <= declaration.extent.start.offset < end


def _changed_in(tree, function: int, declaration, ignore: int = -1) -> bool:
    """Whether any statement of the function assigns, increments or takes the address of
    the variable after its declaration (the assignment at node ``ignore`` aside)."""
    from s2s.frontend.host.functions import _binop

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
                (_binop(cursor) in _ASSIGN_OPS or kind == "COMPOUND_ASSIGNMENT_OPERATOR"):
            return True
        if kind == "UNARY_OPERATOR":
            text = tree.ctx.text(cursor)
            if text.startswith(("++", "--", "&")) or text.endswith(("++", "--")):
                return True
    return False


def returned_allocations(tree) -> dict[str, AllocatingHelper]:
    """Summaries of the file's functions whose one ``return`` hands back an allocation."""
    from s2s.frontend.host.functions import FUNCTION_KINDS

    summaries = {}
    for i, kind in enumerate(tree.kinds):
        if kind not in FUNCTION_KINDS or not tree.nodes[i].cursor.is_definition():
            continue
        summary = _summary(tree, i)
        if summary is not None:
            summaries[summary.name] = summary
    return summaries


def _summary(tree, function: int) -> AllocatingHelper | None:
    from s2s.frontend.host.functions import _malloc, _new_array

    returns = [j for j in range(function, tree.end[function]) if tree.kinds[j] == "RETURN_STMT"]
    values = [_unwrapped(tree, tree.children[j][0]) for j in returns if tree.children[j]]
    if len(values) != len(returns):
        return None
    values = [v for v in values if not _is_null(tree, v)]  # ``if (!p) return NULL;``
    if len(values) != 1:
        return None
    value = _allocation_held(tree, function, values[0])
    if value is None:
        return None
    # returned through a local, the helper may have written it (a fill loop): its elements
    # are data, not the indeterminate contents of a fresh ``malloc`` (kind ``helper``)
    through_local = value != values[0]
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
    if any(_changed_in(tree, function, a) for a in cursor.get_arguments()
           if a.spelling and a.spelling in found.count.text):
        return None  # ``n`` reassigned before the allocation: the call's argument is not it
    return AllocatingHelper(cursor.spelling, params, found.count.text, found.element_type,
                            "helper" if through_local else found.kind)


def _unwrapped(tree, node: int) -> int:
    from s2s.frontend.host.functions import WRAPPER_KINDS

    while tree.kinds[node] in WRAPPER_KINDS and tree.children[node]:
        node = tree.children[node][-1]
    return node


def _is_null(tree, node: int) -> bool:
    """A null pointer constant (``NULL``, ``0``, ``nullptr``), from the cursor kinds."""
    kind = tree.kinds[node]
    if kind in ("GNU_NULL_EXPR", "CXX_NULL_PTR_LITERAL_EXPR"):
        return True
    # the literal of ``NULL`` (``((void *)0)``) spans the macro's name
    return kind == "INTEGER_LITERAL" and \
        tree.ctx.text(tree.nodes[node].cursor).strip() in ("0", "NULL")


def _allocation_held(tree, function: int, value: int) -> int | None:
    """The allocation node the returned ``value`` is: the allocation itself, or a local
    pointer initialized by one and never assigned again (``T *p = malloc(bytes); if (!p)
    {...} for (...) p[i] = v; return p;``)."""
    if tree.kinds[value] != "DECL_REF_EXPR":
        return value
    declaration = tree.nodes[value].cursor.referenced
    if declaration is None or declaration.kind.name != "VAR_DECL" or \
            not _within(tree, function, declaration) or \
            _changed_in(tree, function, declaration):
        return None
    for j in range(function, tree.end[function]):
        if tree.kinds[j] == "VAR_DECL" and tree.nodes[j].cursor == declaration:
            inits = [c for c in tree.children[j] if tree.nodes[c].cursor.kind.is_expression()]
            return _unwrapped(tree, inits[-1]) if len(inits) == 1 else None
    return None


def helper_allocation(tree, i: int, summaries: dict[str, AllocatingHelper]
                      ) -> HostAllocation | None:
    """The allocation a call to a summarized helper makes, with the call's arguments."""
    from s2s.frontend.host.functions import _target

    cursor = tree.nodes[i].cursor
    summary = summaries.get(cursor.spelling)
    target = _target(tree, i) if summary is not None else None
    if target is None:
        return None
    args = tuple(tree.ctx.text(a) for a in cursor.get_arguments())
    return summary.at_call(args, target[0], tree.span(i), tree.nodes[i].function)


def helper_calls(tree, summaries: dict[str, AllocatingHelper]) -> tuple[HelperCall, ...]:
    """The file's stored calls to functions returning a pointer that it declares but does
    not define: allocations once the program holds an :class:`AllocatingHelper` of that
    name (the helper in ``util.c``, its call in ``main.c``)."""
    from s2s.frontend.host.functions import _target
    from s2s.frontend.host.tree import ALLOC_FUNCS

    out = []
    for i, kind in enumerate(tree.kinds):
        if kind != "CALL_EXPR" or tree.nodes[i].function is None:
            continue
        cursor = tree.nodes[i].cursor
        callee = cursor.referenced
        if callee is None or cursor.spelling in summaries or cursor.spelling in ALLOC_FUNCS or \
                callee.kind.name != "FUNCTION_DECL" or callee.get_definition() is not None or \
                cursor.type.get_canonical().kind.name != "POINTER":
            continue
        target = _target(tree, i)
        if target is not None:
            out.append(HelperCall(cursor.spelling, tuple(tree.ctx.text(a) for a in
                                                         cursor.get_arguments()),
                                  target[0], tree.span(i), tree.nodes[i].function))
    return tuple(out)
