"""Host array allocations and their byte sizes: the malloc family, ``new T[n]``, fixed-size
arrays and variable-length arrays, from the tree of :mod:`s2s.frontend.host.tree`.

Each recognizer reads one node; :func:`s2s.frontend.host.allocators.extract_allocations` walks
the file with them (and with the helpers that return allocations, which use them too).
"""

from __future__ import annotations

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.host.byte_counts import single_definition
from s2s.frontend.host.scan import balanced_group, skip_space
from s2s.frontend.host.tree import (
    ARRAY_TYPE_KINDS,
    MALLOC_SIZE_ARG,
    RECORD_KINDS,
    WRAPPER_KINDS,
    HostTree,
    binary_operator_name,
    cursor_expr,
    cursor_offsets,
    unwrap_conversions,
)
from s2s.model.host import HostAllocation
from s2s.model.span import Expr


def array_declaration(tree: HostTree, i: int) -> HostAllocation | None:
    cursor = tree.nodes[i].cursor
    vtype = cursor.type
    canon = vtype.get_canonical()
    if canon.kind.name not in ARRAY_TYPE_KINDS or cursor.storage_class.name == "EXTERN":
        return None
    if tree.parent[i] >= 0 and tree.kinds[tree.parent[i]] in RECORD_KINDS:
        return None  # a static data member's declaration (the definition comes later)
    if any(c.kind.name in ("CUDADEVICE_ATTR", "CUDACONSTANT_ATTR", "CUDASHARED_ATTR")
           for c in cursor.get_children()):
        return None
    is_vla = False
    counts = []
    element = vtype
    while True:
        ekind = element.kind.name
        if ekind not in ARRAY_TYPE_KINDS:
            element = element.get_canonical()
            ekind = element.kind.name
            if ekind not in ARRAY_TYPE_KINDS:
                break
        is_vla = is_vla or ekind == "VARIABLEARRAY"
        counts.append(element.element_count if ekind == "CONSTANTARRAY" else None)
        element = element.element_type
    node = tree.nodes[i]
    span = tree.span(i)
    dims = _written_dims(tree, i, len(counts))
    if dims is None or any(not d.text for d in dims):
        if None in counts:
            dims = ()
        else:
            dims = tuple(Expr(str(c), span) for c in counts)
    count = None
    if len(dims) == 1:
        count = dims[0]
    elif dims:
        text = " * ".join(size_factor(d.text) for d in dims)
        first, last = dims[0].span, dims[-1].span
        count = Expr(text, tree.ctx.index.span(first.start, max(first.start, last.end), tree.templates[i]))
    # The declared spelling keeps typedefs (``cudaStream_t[4]``, not ``CUstream_st *[4]``).
    written = vtype.spelling
    element_type = written.split("[", 1)[0].strip() if "[" in written else element.spelling
    return HostAllocation(cursor.spelling, "vla" if is_vla else "static_array", element_type,
                          span, node.function, count, None, dims, extents=tuple(counts))


def _written_dims(tree: HostTree, i: int, count: int) -> tuple[Expr, ...] | None:
    """The bracketed dimensions after the declared name, as written (None if not plain text)."""
    cursor = tree.nodes[i].cursor
    src = tree.ctx.source
    at = cursor.location.offset
    name = cursor.spelling.encode()
    if not name or not src.startswith(name, at):
        return None
    end = tree.extent(i)[1]
    pos = at + len(name)
    dims = []
    template = tree.templates[i]
    for _ in range(count):
        pos = skip_space(src, pos)
        if src[pos : pos + 1] != b"[":
            return None
        match = balanced_group(src, pos, end + 1)
        if match is None:
            return None
        close = match[0]
        lo, hi = pos + 1, close
        while lo < hi and src[lo] in b" \t\r\n":
            lo += 1
        while hi > lo and src[hi - 1] in b" \t\r\n":
            hi -= 1
        dims.append(Expr(tree.ctx.index.text(lo, hi), tree.ctx.index.span(lo, hi, template)))
        pos = close + 1
    return tuple(dims)


def size_factor(text: str) -> str:
    """Parenthesise ``text`` unless it is a plain operand (for building products)."""
    depth = 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in "+-*/%<>=&|^?:,!~ ":
            return f"({text})"
    return text


def allocation_target(tree: HostTree, i: int):
    """The variable or member that the allocation at node ``i`` initialises or is assigned
    to (a constructor's member initializer too): (name, type of the target) or None."""
    child, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in WRAPPER_KINDS:
        child, p = p, tree.parent[p]
    if p < 0:
        return None
    pkind = tree.kinds[p]
    cursor = tree.nodes[p].cursor
    if pkind == "VAR_DECL":
        return cursor.spelling, cursor.type
    if pkind == "CONSTRUCTOR":  # a member initializer ``u_(new double[n])``
        kids = tree.children[p]
        at = kids.index(child)
        member = tree.nodes[kids[at - 1]].cursor if at > 0 and \
            tree.kinds[kids[at - 1]] == "MEMBER_REF" else None
        field = member.referenced if member is not None else None
        return (member.spelling, field.type) if field is not None else None
    if pkind == "BINARY_OPERATOR" and tree.children[p] and tree.children[p][0] != child:
        if cursor.spelling == "=" or binary_operator_name(cursor) == "Assign":
            lhs = tree.children[p][0]
            return tree.expr(lhs).text, tree.nodes[lhs].cursor.type
    return None


def _sizeof_type(ctx: ExtractContext, cursor) -> str | None:
    """The type measured by a ``sizeof`` factor: ``sizeof(T)`` -> T, ``sizeof *p`` -> *p's type."""
    text = ctx.text(cursor)
    if not text.startswith("sizeof"):
        return None
    for child in cursor.get_children():
        if child.kind.is_expression():
            return child.type.spelling
    inner = text[len("sizeof"):].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1].strip()
    return inner or None


def size_parts(ctx: ExtractContext, size, template):
    """(count Expr or None, element type from sizeof or None) of a byte-size expression."""
    factors = []
    stack = [size]
    while stack:
        cur = unwrap_conversions(stack.pop())
        if cur.kind.name == "BINARY_OPERATOR" and (cur.spelling == "*" or binary_operator_name(cur) == "Mul"):
            stack.extend(reversed(list(cur.get_children())))
        else:
            factors.append(cur)
    sizeofs = [k for k, f in enumerate(factors) if f.kind.name == "CXX_UNARY_EXPR"
               and _sizeof_type(ctx, f) is not None]
    if len(sizeofs) != 1:
        return None, None
    elem = _sizeof_type(ctx, factors[sizeofs[0]])
    others = [f for k, f in enumerate(factors) if k != sizeofs[0]]
    if not others:  # malloc(sizeof(T)): one element
        return Expr("1", cursor_expr(ctx, factors[sizeofs[0]], template).span), elem
    if sizeofs[0] in (0, len(factors) - 1):
        start, end = cursor_offsets(others[0])[0], cursor_offsets(others[-1])[1]
        if start < end:
            return Expr(ctx.index.text(start, end), ctx.index.span(start, end, template)), elem
    text = " * ".join(size_factor(ctx.text(f)) for f in others)
    return Expr(text, cursor_expr(ctx, size, template).span), elem


def pointee_name(ptype) -> str | None:
    canon = ptype.get_canonical()
    if canon.kind.name != "POINTER":
        return None
    pointee = ptype.get_pointee() if ptype.kind.name == "POINTER" else canon.get_pointee()
    if pointee.get_canonical().kind.name == "VOID":
        return None
    return pointee.spelling


def malloc_allocation(tree: HostTree, i: int, target=None) -> HostAllocation | None:
    """The allocation a malloc-family call at node ``i`` makes for its target (the variable
    it initializes or is assigned to; ``target`` when given: a helper's return value)."""
    ctx = tree.ctx
    node = tree.nodes[i]
    cursor, template = node.cursor, tree.templates[i]
    func = cursor.spelling
    args = [a for a in cursor.get_arguments()]
    if target is not None:
        pass
    elif func == "posix_memalign":
        target = _address_target(ctx, args[0], template) if args else None
    else:
        target = allocation_target(tree, i)
    if target is None:
        return None
    name, ttype = target
    elem = pointee_name(ttype)
    if func == "calloc":
        if len(args) < 2:
            return None
        count = cursor_expr(ctx, args[0], template)
        sizeof_elem = _sizeof_type(ctx, unwrap_conversions(args[1]))
        elem = elem or sizeof_elem
        start, end = cursor_offsets(args[0])[0], cursor_offsets(args[1])[1]
        size = Expr(f"{size_factor(count.text)} * {size_factor(ctx.text(args[1]))}",
                    ctx.index.span(start, max(start, end), template))
    else:
        index = MALLOC_SIZE_ARG[func]
        if len(args) <= index:
            return None
        size = cursor_expr(ctx, args[index], template)
        count, sizeof_elem = size_parts(ctx, args[index], template)
        if count is None and sizeof_elem is None:  # malloc(bytes): bytes = n * sizeof(T)
            definition = single_definition(tree, i, args[index])
            if definition is not None:
                count, sizeof_elem = size_parts(ctx, definition, template)
        if count is None and sizeof_elem is None and _byte_sized(ttype):
            count = size    # ``char *s = malloc(len + 1)``: the bytes are the elements
        elem = elem or sizeof_elem
    count = in_pointee_units(ttype, name, count, sizeof_elem, size)
    return HostAllocation(name, func, elem or "void", tree.span(i), node.function, count, size)


def in_pointee_units(ttype, name: str, count: Expr | None, measured: str | None,
                      size: Expr) -> Expr | None:
    """``count`` counted in the target's own elements. A pointer to an array type (``row_t
    *phi`` with ``typedef double row_t[100]``, ``double (*phi)[NX]``) has rows as elements:
    ``malloc(ny * NX * sizeof(double))`` holds ``ny`` of them, not ``ny * NX`` (a section
    ``phi[0:ny * NX]`` asks for NX times the storage). Where ``sizeof`` measures another
    type than the pointee, the count is the byte size divided by the pointee's size, which
    is right whatever the types (the clause then reads ``phi[0:(bytes) / sizeof(*phi)]``)."""
    canon = ttype.get_canonical()
    if count is None or canon.kind.name != "POINTER":
        return count
    pointee = canon.get_pointee().get_canonical()
    if pointee.kind.name not in ("CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY"):
        return count
    spelled = ttype.get_pointee().spelling if ttype.kind.name == "POINTER" else None
    if measured is not None and measured.strip() in (spelled, pointee.spelling):
        return count
    return Expr(f"({size.text}) / sizeof(*{name})", size.span)


def _byte_sized(ttype) -> bool:
    """A pointer to a one-byte character type (``char``, ``unsigned char``, ``int8_t``)."""
    try:
        pointee = ttype.get_canonical().get_pointee()
    except Exception:  # noqa: BLE001 - no type: not known to be bytes
        return False
    return pointee.kind.name in ("CHAR_S", "CHAR_U", "SCHAR", "UCHAR")


def _address_target(ctx: ExtractContext, arg, template):
    """``(void **)&p`` -> (``p``, type of p) for posix_memalign."""
    cur = arg
    while cur.kind.name in WRAPPER_KINDS:
        kids = list(cur.get_children())
        if not kids:
            return None
        cur = kids[-1]
    if cur.kind.name != "UNARY_OPERATOR" or not ctx.text(cur).startswith("&"):
        return None
    kids = list(cur.get_children())
    if not kids:
        return None
    return cursor_expr(ctx, kids[0], template).text, kids[0].type


def new_array_allocation(tree: HostTree, i: int, target=None) -> HostAllocation | None:
    """``new T[n]`` (placement and initialisers allowed); scalar ``new T`` is not an array.
    ``target``: what it is stored to, when not the variable it initializes or is assigned to."""
    ctx = tree.ctx
    node = tree.nodes[i]
    start, end = tree.extent(i)
    src = ctx.source
    pos = skip_space(src, start + 2 if src.startswith(b"::", start) else start)
    if not src.startswith(b"new", pos):
        return None
    pos = skip_space(src, pos + 3)
    if src[pos : pos + 1] == b"(":  # placement arguments, or a parenthesised type
        match = balanced_group(src, pos, end)
        if match is None:
            return None
        pos = match[0] + 1
    depth = 0
    while pos < end:
        c = src[pos]
        if c == ord("<"):
            depth += 1
        elif c == ord(">"):
            depth -= 1
        elif depth == 0 and c in b"({;":
            return None
        elif depth == 0 and c == ord("["):
            break
        pos += 1
    else:
        return None
    match = balanced_group(src, pos, end)
    if match is None:
        return None
    lo, hi = pos + 1, match[0]
    text = ctx.index.text(lo, hi)
    lo += len(text) - len(text.lstrip())
    hi -= len(text) - len(text.rstrip())
    count = Expr(ctx.index.text(lo, hi), ctx.index.span(lo, hi, tree.templates[i]))
    target = target or allocation_target(tree, i)
    if target is None:
        return None
    ntype = node.cursor.type
    elem = pointee_name(ntype) or ntype.get_pointee().spelling
    initialised = src[match[0] + 1:end].strip() != b""  # ``new T[n]()``, ``new T[n]{}``
    return HostAllocation(target[0], "new[]", elem, tree.span(i), node.function, count, None,
                          initialised=initialised)
