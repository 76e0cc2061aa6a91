"""Element counts of heap arrays that real programs do not spell in the allocation call.

``malloc(n * sizeof(double))`` gives its count on the spot; code written by others often does
not (issue 17, item 2):

* the byte size is held in a variable first: ``size_t bytes = n * sizeof(double); double *a =
  malloc(bytes);`` -- the count comes from the variable's only definition, its initializer,
  when nothing in the function assigns the variable again
  (:func:`s2s.frontend.host.byte_counts.single_definition`);
* a helper returns the allocation: ``static float *make(int n) { return malloc(n *
  sizeof(float)); }`` and ``float *c = make(n);`` -- a return-value summary of the helper (its
  one ``return`` is an allocation whose count uses only its parameters and globals) is
  instantiated at each call with the call's arguments (:func:`returned_allocations`,
  :func:`helper_allocation`).

Facts come from libclang's cursors (declarations, references, parents), not from the text.
:func:`extract_allocations` and :func:`extract_helper_facts`, the file's allocations with the
recognizers of :mod:`s2s.frontend.host.alloc`, are the entry points.
"""

from __future__ import annotations

import re

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.host.alloc import (
    allocation_target,
    array_declaration,
    malloc_allocation,
    new_array_allocation,
)
from s2s.frontend.host.byte_counts import changed_in, declared_within
from s2s.frontend.host.containers import vector_allocation
from s2s.frontend.host.tree import (
    ALLOC_FUNCS,
    WRAPPER_KINDS,
    cuda_role,
    host_tree,
    is_host_code,
)
from s2s.model.host import AllocatingHelper, HelperCall, HostAllocation

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def extract_allocations(ctx: ExtractContext) -> tuple[HostAllocation, ...]:
    """Host arrays and their sizes: malloc family, ``new T[n]``, fixed-size arrays and VLAs.

    Code inside ``__global__`` and ``__device__``-only functions is skipped, and so are CUDA
    allocation calls (the CUDA extractor reports those). A heap allocation is reported only
    when it initialises or is assigned to a variable or member (``name``).
    """
    tree = host_tree(ctx)
    out: list[HostAllocation] = []
    helpers = ctx.memo("allocating_helpers", lambda c: returned_allocations(host_tree(c)))
    device_until = -1  # nodes before this index lie in a device function
    for i, node in enumerate(tree.nodes):
        if i < device_until:
            continue
        kind = node.kind
        if kind in FUNCTION_KINDS:
            if not is_host_code(cuda_role(node.cursor)):
                device_until = tree.end[i]
            continue
        found = None
        if kind == "VAR_DECL":
            found = array_declaration(tree, i) or vector_allocation(tree, i)
        elif kind == "FIELD_DECL" or (kind == "PARM_DECL" and node.function is not None):
            found = vector_allocation(tree, i)  # a by-value vector parameter is a copy
        elif kind == "CALL_EXPR" and node.cursor.spelling in ALLOC_FUNCS:
            found = malloc_allocation(tree, i)
        elif kind == "CALL_EXPR" and helpers and node.cursor.spelling in helpers:
            found = helper_allocation(tree, i, helpers)
        elif kind == "CXX_NEW_EXPR":
            found = new_array_allocation(tree, i)
        if found is not None:
            out.append(found)
    return tuple(out)


def extract_helper_facts(ctx: ExtractContext) -> tuple[tuple, tuple]:
    """The file's allocating helpers and its calls to helpers defined elsewhere
    (frontend.host.allocators), for the program to join."""
    helpers = ctx.memo("allocating_helpers", lambda c: returned_allocations(host_tree(c)))
    return tuple(helpers.values()), helper_calls(host_tree(ctx), helpers)


def returned_allocations(tree) -> dict[str, AllocatingHelper]:
    """Summaries of the file's functions whose one ``return`` hands back an allocation."""
    summaries = {}
    for i, kind in enumerate(tree.kinds):
        if kind not in FUNCTION_KINDS or not tree.nodes[i].cursor.is_definition():
            continue
        summary = _summary(tree, i)
        if summary is not None:
            summaries[summary.name] = summary
    return summaries


def _summary(tree, function: int) -> AllocatingHelper | None:
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
        found = malloc_allocation(tree, value, target)
    elif tree.kinds[value] == "CXX_NEW_EXPR":
        found = new_array_allocation(tree, value, target)
    else:
        return None
    if found is None or found.count is None:
        return None
    params = tuple(a.spelling for a in cursor.get_arguments())
    local_names = {tree.nodes[j].cursor.spelling for j in range(function, tree.end[function])
                   if tree.kinds[j] == "VAR_DECL"} - set(params)
    if any(name in local_names for name in _IDENT.findall(found.count.text)):
        return None  # the count uses the helper's own locals: not expressible at the call
    if any(changed_in(tree, function, a) for a in cursor.get_arguments()
           if a.spelling and a.spelling in found.count.text):
        return None  # ``n`` reassigned before the allocation: the call's argument is not it
    return AllocatingHelper(cursor.spelling, params, found.count.text, found.element_type,
                            "helper" if through_local else found.kind)


def _unwrapped(tree, node: int) -> int:
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
            not declared_within(tree, function, declaration) or \
            changed_in(tree, function, declaration):
        return None
    for j in range(function, tree.end[function]):
        if tree.kinds[j] == "VAR_DECL" and tree.nodes[j].cursor == declaration:
            inits = [c for c in tree.children[j] if tree.nodes[c].cursor.kind.is_expression()]
            return _unwrapped(tree, inits[-1]) if len(inits) == 1 else None
    return None


def helper_allocation(tree, i: int, summaries: dict[str, AllocatingHelper]
                      ) -> HostAllocation | None:
    """The allocation a call to a summarized helper makes, with the call's arguments."""
    cursor = tree.nodes[i].cursor
    summary = summaries.get(cursor.spelling)
    target = allocation_target(tree, i) if summary is not None else None
    if target is None:
        return None
    args = tuple(tree.ctx.text(a) for a in cursor.get_arguments())
    return summary.at_call(args, target[0], tree.span(i), tree.nodes[i].function)


def helper_calls(tree, summaries: dict[str, AllocatingHelper]) -> tuple[HelperCall, ...]:
    """The file's stored calls to functions returning a pointer that it declares but does
    not define: allocations once the program holds an :class:`AllocatingHelper` of that
    name (the helper in ``util.c``, its call in ``main.c``)."""
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
        target = allocation_target(tree, i)
        if target is not None:
            out.append(HelperCall(cursor.spelling, tuple(tree.ctx.text(a) for a in
                                                         cursor.get_arguments()),
                                  target[0], tree.span(i), tree.nodes[i].function))
    return tuple(out)
