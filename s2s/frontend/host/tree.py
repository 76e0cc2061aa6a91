"""The main-file tree of host code: libclang's cached pre-order walk rebuilt once per context
(children, parent, subtree end of every node), byte extents read without building locations,
the CUDA role of a function, and the cursor kinds the host extractors share.

Every loop here is iterative: a chain of 200 ``else if`` or a 500-term sum must not hit
Python's recursion limit.
"""

from __future__ import annotations

import ctypes

from s2s.frontend.core.context import FUNCTION_KINDS, TEMPLATE_KINDS, ExtractContext
from s2s.frontend.core.fast_cursor import children, is_attribute, kind_name, offsets
from s2s.frontend.core.toolchain import configure_libclang
from s2s.model.span import Expr

#: Allocation functions of the C library (and common relatives) -> index of the byte-size
#: argument. calloc is handled apart (count and element size are two arguments).
MALLOC_SIZE_ARG = {"malloc": 0, "realloc": 1, "aligned_alloc": 1, "posix_memalign": 2,
                   "memalign": 1, "valloc": 0, "pvalloc": 0, "_mm_malloc": 0}
ARRAY_TYPE_KINDS = frozenset({"CONSTANTARRAY", "VARIABLEARRAY", "INCOMPLETEARRAY",
                              "DEPENDENTSIZEDARRAY"})
MEMBER_KINDS = frozenset({"CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR", "CONVERSION_FUNCTION"})
RECORD_KINDS = frozenset({"STRUCT_DECL", "CLASS_DECL", "UNION_DECL", "CLASS_TEMPLATE",
                          "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION"})
#: Expression wrappers between an allocation call and the variable it initialises.
WRAPPER_KINDS = frozenset({"UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                           "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR", "PAREN_EXPR",
                           "CXX_FUNCTIONAL_CAST_EXPR"})
#: Subtrees whose calls do not run when the enclosing statement runs.
CALL_SCAN_SKIP = RECORD_KINDS | FUNCTION_KINDS | {"LAMBDA_EXPR"}
#: libclang statement kinds -> Stmt kinds (other statements are ``other``, expressions ``expr``).
STMT_KINDS = {"COMPOUND_STMT": "block", "FOR_STMT": "for", "WHILE_STMT": "while", "DO_STMT": "do",
              "CXX_FOR_RANGE_STMT": "range_for", "IF_STMT": "if", "SWITCH_STMT": "switch",
              "CASE_STMT": "case", "DEFAULT_STMT": "default", "BREAK_STMT": "break",
              "CONTINUE_STMT": "continue", "RETURN_STMT": "return", "GOTO_STMT": "goto",
              "LABEL_STMT": "label", "DECL_STMT": "decl", "NULL_STMT": "null"}
LAUNCH_CONFIG = "__cudaPushCallConfiguration"
ALLOC_FUNCS = frozenset(MALLOC_SIZE_ARG) | {"calloc"}


# --------------------------------------------------------------------------------------------
# The main-file tree, rebuilt once per context from the cached pre-order walk.

def cursor_offsets(cursor) -> tuple[int, int]:
    """``(start, end)`` byte offsets of a cursor's extent (:func:`fast_cursor.offsets`:
    ``cursor.extent.start.offset`` also builds the file, line and column, and dominated the
    profile of a 1000-line file)."""
    return offsets(cursor)


def cursor_expr(ctx: ExtractContext, cursor, template: str | None) -> Expr:
    start, end = cursor_offsets(cursor)
    return Expr(ctx.index.text(start, end), ctx.index.span(start, end, template))


class HostTree:
    """Children, parent and subtree end of every node of ``ctx.nodes()``."""

    def __init__(self, ctx: ExtractContext):
        self.ctx = ctx
        self.nodes = nodes = ctx.nodes()
        self.kinds = [n.kind for n in nodes]
        self.parent, self.end = ctx.subtree_links()
        self.children = Children(self.end)
        self._extents: dict[int, tuple[int, int]] = {}
        self.templates = [n.template for n in nodes]
        #: whether a callee's declaration says it never returns, by its cursor
        #: (host.calls: asked once per function, not once per call)
        self.noreturn: dict = {}
        self._out_of_line_templates()

    def _out_of_line_templates(self) -> None:
        """``template <class V> void Box<V>::m() {...}`` sits outside the class template in the
        walk, so its node has no template: take it from the method's semantic parent."""
        kinds, parent = self.kinds, self.parent
        for i, kind in enumerate(kinds):
            if kind not in MEMBER_KINDS or self.templates[i] is not None:
                continue
            if parent[i] >= 0 and kinds[parent[i]] in RECORD_KINDS:
                continue
            owner = self.nodes[i].cursor.semantic_parent
            if owner is not None and owner.kind.name in TEMPLATE_KINDS:
                self.templates[i : self.end[i]] = [owner.spelling] * (self.end[i] - i)

    def extent(self, i: int) -> tuple[int, int]:
        got = self._extents.get(i)
        if got is None:
            got = self._extents[i] = cursor_offsets(self.nodes[i].cursor)
        return got

    def span(self, i: int):
        start, end = self.extent(i)
        return self.ctx.index.span(start, end, self.templates[i])

    def expr(self, i: int) -> Expr:
        start, end = self.extent(i)
        return Expr(self.ctx.index.text(start, end), self.span(i))


class Children:
    """``children[i]``: the list of node ``i``'s children, made when asked from the subtree
    ends (node ``i``'s first child is ``i + 1``, each next one starts where the previous
    subtree ends). A list per node, kept for all of them, was 47 MB of the 1 MB CUDA file's
    431,000 nodes (issue 30); the last lists asked for are kept (a scan asks for the same
    node's children several times in a row)."""

    __slots__ = ("_end", "_recent")
    _KEEP = 4096

    def __init__(self, end: list[int]):
        self._end, self._recent = end, {}

    def __getitem__(self, i: int) -> list[int]:
        found = self._recent.get(i)
        if found is None:
            end, found = self._end, []
            j, stop = i + 1, end[i]
            while j < stop:
                found.append(j)
                j = end[j]
            if len(self._recent) >= self._KEEP:
                self._recent.clear()
            self._recent[i] = found
        return found

    def __len__(self) -> int:
        return len(self._end)


def host_tree(ctx: ExtractContext) -> HostTree:
    return ctx.memo("host.tree", HostTree)


def cuda_role(cursor) -> str:
    """``global``, ``device`` (device only), ``host_device`` or ``host`` from the attributes.

    The attributes come from macros defined in the CUDA headers, so they are not in the
    main-file walk: read them from the cursor's own children.
    """
    kinds = {kind_name(c) for c in children(cursor) if is_attribute(c)}
    if "CUDAGLOBAL_ATTR" in kinds:
        return "global"
    if "CUDADEVICE_ATTR" in kinds:
        return "host_device" if "CUDAHOST_ATTR" in kinds else "device"
    return "host"


def is_host_code(role: str) -> bool:
    return role in ("host", "host_device")


def binary_operator_name(cursor) -> str:
    try:
        return cursor.binary_operator.name
    except Exception:  # older bindings
        return ""


def unwrap_conversions(cursor):
    """Strip implicit conversions (same extent, one child) and nothing else."""
    while cursor.kind.name == "UNEXPOSED_EXPR":
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


_UNARY: list = []


def unary_kind(cursor) -> int:
    """libclang's CXUnaryOperatorKind of a ``UNARY_OPERATOR`` cursor (clang-c/Index.h)."""
    if not _UNARY:
        cindex = configure_libclang()
        function = cindex.conf.lib.clang_getCursorUnaryOperatorKind
        # (the bindings' Cursor: the walk's cursors are of a subclass per unit)
        function.argtypes, function.restype = [cindex.Cursor], ctypes.c_int
        _UNARY.append(function)
    return _UNARY[0](cursor)
