"""Host code: function bodies as structured statement trees, with their parameters.

The extractors work from the context's cached pre-order walk (``ctx.nodes()``), rebuilt as a
tree once per context (:mod:`s2s.frontend.host.tree`), so no extractor walks libclang's
cursors a second time. The parts: the tree and shared cursor kinds (``host.tree``), raw-byte
scanning of statement headers (``host.scan``), call sites (``host.calls``), statements
(``host.stmts``), and here the functions with their parameters. Allocations are
:mod:`s2s.frontend.host.allocators`'.
"""

from __future__ import annotations

import re

from s2s.frontend.core import fast_cursor
from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.core.fast_cursor import cursor_type, spelling
from s2s.frontend.host.containers import vector_reference
from s2s.frontend.host.stmts import StmtBuilder
from s2s.frontend.host.tree import (
    ARRAY_TYPE_KINDS,
    MEMBER_KINDS,
    cursor_offsets,
    host_tree,
)
from s2s.model.cuda import Param
from s2s.model.host import HostFunction


def _param(ctx: ExtractContext, cursor, template: str | None) -> Param:
    ptype = cursor_type(cursor)
    canon = ptype.get_canonical()
    kind = fast_cursor.type_kind(canon)
    is_pointer = kind == "POINTER" or kind in ARRAY_TYPE_KINDS
    pointee_const = vector = False
    if kind == "POINTER":
        pointee_const = canon.get_pointee().is_const_qualified()
    elif vector_reference(canon):
        # ``std::vector<T> &v`` names the caller's storage, as a pointer would
        is_pointer, pointee_const = True, canon.get_pointee().is_const_qualified()
        vector = True
    elif kind in ARRAY_TYPE_KINDS:
        # An array parameter decays; clang keeps the element's const on the array type.
        pointee_const = canon.is_const_qualified() or canon.element_type.is_const_qualified()
    return Param(spelling(cursor), ptype.spelling, ctx.span(cursor, template), is_pointer,
                 bool(pointee_const), bool(ptype.is_restrict_qualified() or canon.is_restrict_qualified()),
                 vector)


def _is_static(ctx: ExtractContext, cursor) -> bool:
    storage = cursor.storage_class.name
    if storage != "INVALID":
        return storage == "STATIC"
    # Templates have no storage class in libclang: look at the text before the name.
    start, name_at = cursor_offsets(cursor)[0], cursor.location.offset
    return re.search(rb"\bstatic\b", ctx.source[start:max(start, name_at)]) is not None


def extract_functions(ctx: ExtractContext, directives=(), call_args: bool = True
                      ) -> tuple[HostFunction, ...]:
    """Every host function defined in the main file, with its body as a Stmt tree.

    Kernels (``__global__``) and ``__device__``-only functions are left out; ``__host__
    __device__`` functions are host code too. ``directives`` (the file's OmpDirective tuple)
    lets a statement record which directive governs it. Without ``call_args`` the call
    sites carry no arguments (a model for ``s2s inspect``'s tables only).
    """
    tree = host_tree(ctx)
    builder = StmtBuilder(tree, directives, call_args)
    out = []
    fields_of: dict = {}    # class cursor's hash -> its data members (one walk per class)
    for i, node in enumerate(tree.nodes):
        if node.kind not in FUNCTION_KINDS:
            continue
        cursor = node.cursor
        if not cursor.is_definition():
            continue
        children = fast_cursor.children(cursor)
        kinds = {fast_cursor.kind_name(c) for c in children}
        if "CUDAGLOBAL_ATTR" in kinds or ("CUDADEVICE_ATTR" in kinds and "CUDAHOST_ATTR" not in kinds):
            continue
        body_index = next((k for k in reversed(tree.children[i])
                           if tree.kinds[k] in ("COMPOUND_STMT", "CXX_TRY_STMT")), None)
        body = builder.build(body_index) if body_index is not None else None
        template = tree.templates[i]
        params = tuple(_param(ctx, c, template) for c in children
                       if fast_cursor.kind_name(c) == "PARM_DECL")
        out.append(HostFunction(
            name=cursor.spelling, span=ctx.span(cursor, template),
            return_type=cursor.result_type.spelling, params=params, body=body,
            is_template=node.kind == "FUNCTION_TEMPLATE" or template is not None,
            is_static=_is_static(ctx, cursor), member_of=_member_of(cursor),
            fields=_class_fields(cursor, fields_of)))
    return tuple(out)


def _class_fields(cursor, known: dict, depth: int = 8) -> tuple[str, ...]:
    """The data members a member function names bare: every field and static data member
    of its class and, through the base specifiers, of the classes it derives from (issue
    28: a data region's clause may name them, ``dims.cells`` in a method of a class with a
    ``dims`` member)."""
    if cursor.kind.name not in MEMBER_KINDS or cursor.semantic_parent is None:
        return ()
    key = (cursor.semantic_parent.hash, cursor.semantic_parent.spelling)
    if key not in known:
        known[key] = _record_fields(cursor.semantic_parent, depth)
    return known[key]


def _record_fields(record, depth: int) -> tuple[str, ...]:
    names: dict[str, None] = {}
    pending = [(record, depth)]
    while pending:
        record, left = pending.pop()
        if record is None or left <= 0:
            continue
        for child in record.get_children():
            kind = child.kind.name
            if kind in ("FIELD_DECL", "VAR_DECL") and child.spelling:
                names.setdefault(child.spelling)
            elif kind == "CXX_BASE_SPECIFIER":
                pending.append((child.type.get_canonical().get_declaration(), left - 1))
    return tuple(names)


def _member_of(cursor) -> str | None:
    """The class a member function (method, constructor, destructor) belongs to."""
    if cursor.kind.name not in MEMBER_KINDS:
        return None
    owner = cursor.semantic_parent
    return owner.spelling if owner is not None and owner.spelling else None
