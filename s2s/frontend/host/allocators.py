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

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.host.alloc import (
    allocation_target,
    array_declaration,
    in_pointee_units,
    malloc_allocation,
    new_array_allocation,
    pointee_name,
    size_parts,
)
from s2s.frontend.host.byte_counts import changed_in, declared_within, single_definition
from s2s.frontend.host.containers import vector_allocation
from s2s.frontend.host.header_helpers import header_allocating_helpers
from s2s.frontend.host.helper_counts import count_at_call
from s2s.frontend.host.tree import (
    ALLOC_FUNCS,
    WRAPPER_KINDS,
    binary_operator_name,
    cuda_role,
    host_tree,
    is_host_code,
)
from s2s.model.host import AllocatingHelper, HelperCall, HostAllocation
from s2s.model.span import Expr


def extract_allocations(ctx: ExtractContext) -> tuple[HostAllocation, ...]:
    """Host arrays and their sizes: malloc family, ``new T[n]``, fixed-size arrays and VLAs.

    Code inside ``__global__`` and ``__device__``-only functions is skipped, and so are CUDA
    allocation calls (the CUDA extractor reports those). A heap allocation is reported only
    when it initialises or is assigned to a variable or member (``name``).
    """
    tree = host_tree(ctx)
    out: list[HostAllocation] = []
    helpers = ctx.memo("allocating_helpers", _allocating_helpers)
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
    helpers = ctx.memo("allocating_helpers", _allocating_helpers)
    return tuple(helpers.values()), helper_calls(host_tree(ctx), helpers)


def _allocating_helpers(ctx: ExtractContext) -> dict[str, AllocatingHelper]:
    """The helpers the file defines, and those it calls from project headers
    (:mod:`s2s.frontend.host.header_helpers`); a helper of the file's own wins."""
    return {**header_allocating_helpers(ctx, returned_allocations),
            **returned_allocations(host_tree(ctx))}


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
            "malloc", "calloc", "aligned_alloc", "posix_memalign"):
        found = malloc_allocation(tree, value, target)
    elif tree.kinds[value] == "CXX_NEW_EXPR":
        found = new_array_allocation(tree, value, target)
    else:
        return None
    params = tuple(a.spelling for a in cursor.get_arguments())
    if found is not None and found.count is None and found.size_bytes is not None and \
            found.size_bytes.text.strip() in params and \
            cursor.result_type.get_canonical().get_pointee().kind.name == "VOID":
        # ``void *xmalloc(size_t bytes)``, PRK's ``prk_malloc``: a count of bytes, which
        # each call turns into elements of its target (_bytes_helper_allocation)
        return AllocatingHelper(cursor.spelling, params, found.size_bytes.text.strip(),
                                "void", found.kind)
    if found is None or found.count is None:
        return None
    local_names = {tree.nodes[j].cursor.spelling for j in range(function, tree.end[function])
                   if tree.kinds[j] == "VAR_DECL"} - set(params)
    # the helper's constant locals by their literals; other locals are not expressible
    # at the call (frontend.host.helper_counts)
    count = count_at_call(tree, function, found.count.text, value, local_names,
                          list(cursor.get_arguments()))
    if count is None:
        return None
    if any(changed_in(tree, function, a) for a in cursor.get_arguments()
           if a.spelling and a.spelling in found.count.text):
        return None  # ``n`` reassigned before the allocation: the call's argument is not it
    return AllocatingHelper(cursor.spelling, params, count, found.element_type,
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
            not declared_within(tree, function, declaration):
        return None
    if changed_in(tree, function, declaration):
        return _aligned_into(tree, function, declaration)
    for j in range(function, tree.end[function]):
        if tree.kinds[j] == "VAR_DECL" and tree.nodes[j].cursor == declaration:
            inits = [c for c in tree.children[j] if tree.nodes[c].cursor.kind.is_expression()]
            return _unwrapped(tree, inits[-1]) if len(inits) == 1 else None
    return None


def _aligned_into(tree, function: int, declaration) -> int | None:
    """The ``posix_memalign(&p, alignment, bytes)`` call a local ``void *p`` (declared
    without a value or with a null one) receives its storage from, when that call is the
    only thing that changes it but assignments of null (``if (ret != 0) p = NULL;``): the
    Parallel Research Kernels' ``prk_malloc``. None otherwise."""
    inits = [c for c in declaration.get_children() if c.kind.is_expression()]
    calls, others = [], []
    for j in range(function, tree.end[function]):
        if tree.kinds[j] != "DECL_REF_EXPR" or tree.nodes[j].cursor.referenced != declaration:
            continue
        p = tree.parent[j]
        if p >= 0 and tree.kinds[p] == "UNARY_OPERATOR" and \
                tree.ctx.text(tree.nodes[p].cursor).lstrip().startswith("&"):
            call = tree.parent[p]
            while call >= 0 and tree.kinds[call] in ("UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR",
                                                     "PAREN_EXPR"):
                call = tree.parent[call]
            ok = call >= 0 and tree.kinds[call] == "CALL_EXPR" and \
                tree.nodes[call].cursor.spelling == "posix_memalign" and \
                tree.children[call][1:2] and \
                tree.extent(tree.children[call][1])[0] <= tree.extent(j)[0] < \
                tree.extent(tree.children[call][1])[1]
            (calls if ok else others).append(call)
        elif p >= 0 and tree.kinds[p] == "BINARY_OPERATOR" and tree.children[p][0] == j and \
                binary_operator_name(tree.nodes[p].cursor) == "Assign":
            if not _is_null(tree, _unwrapped(tree, tree.children[p][1])):
                others.append(p)
    if len(calls) != 1 or others or inits and not _null_text(tree.ctx.text(inits[0])):
        return None
    return calls[0]


def _null_text(text: str) -> bool:
    return text.strip() in ("0", "NULL", "nullptr", "((void *)0)", "(void *)0")


def helper_allocation(tree, i: int, summaries: dict[str, AllocatingHelper]
                      ) -> HostAllocation | None:
    """The allocation a call to a summarized helper makes, with the call's arguments. A
    helper returning ``void *`` counts bytes (``prk_malloc(n * sizeof(double))``): the
    call's argument gives the count in the target's elements (its ``sizeof`` factor)."""
    cursor = tree.nodes[i].cursor
    summary = summaries.get(cursor.spelling)
    target = allocation_target(tree, i) if summary is not None else None
    if target is None:
        return None
    if summary.element_type == "void":
        return _bytes_helper_allocation(tree, i, summary, target)
    args = tuple(tree.ctx.text(a) for a in cursor.get_arguments())
    return summary.at_call(args, target[0], tree.span(i), tree.nodes[i].function)


def _bytes_helper_allocation(tree, i: int, summary: AllocatingHelper, target
                             ) -> HostAllocation | None:
    """``T *a = helper(n * sizeof(T))`` of a helper whose count is its byte-size parameter:
    ``n`` elements of ``T`` (None when the argument has no one ``sizeof`` factor)."""
    args = list(tree.nodes[i].cursor.get_arguments())
    if len(args) != len(summary.params) or summary.count not in summary.params:
        return None
    argument = args[summary.params.index(summary.count)]
    count = _elements_measured(tree, i, argument, target)
    if count is None:
        return None
    name, ttype = target
    span = tree.span(i)
    return HostAllocation(name, summary.kind, pointee_name(ttype) or "void", span,
                          tree.nodes[i].function, Expr(count, span),
                          Expr(tree.ctx.text(argument), span))


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
            args = list(cursor.get_arguments())
            elements = tuple(_elements_measured(tree, i, a, target) for a in args)
            out.append(HelperCall(cursor.spelling, tuple(tree.ctx.text(a) for a in args),
                                  target[0], tree.span(i), tree.nodes[i].function, elements))
    return tuple(out)


def _elements_measured(tree, i: int, argument, target) -> str | None:
    """The count of ``target``'s elements the call's ``argument`` measures as a byte size
    (``n * sizeof(T)``; a local ``bytes`` whose one value is such a product); None when it
    has no one ``sizeof`` factor."""
    template = tree.templates[i]
    count, measured = size_parts(tree.ctx, argument, template)
    if count is None and measured is None:
        definition = single_definition(tree, i, argument)
        if definition is not None:
            count, measured = size_parts(tree.ctx, definition, template)
    if count is None:
        return None
    name, ttype = target
    count = in_pointee_units(ttype, name, count, measured,
                              Expr(tree.ctx.text(argument), count.span))
    return None if count is None else count.text
