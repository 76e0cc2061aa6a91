"""Lower the bodies of ``__global__`` and ``__device__`` functions to the kernel IR.

Access analysis interprets kernel bodies symbolically; it needs operators, constants and
control flow, which only libclang's cursors hold. This module reads them once and returns
frozen :class:`~s2s.model.kernel_ir.KernelBody` objects, so the analysis never touches libclang.

libclang details handled here:

* Integer constants are folded with ``clang_Cursor_Evaluate`` (literals, ``sizeof``,
  enumerators, ``const``/``constexpr`` variables, and macro constants such as ``TILE``, which
  reach the AST as literals).
* ``threadIdx.x`` is a member reference with an empty spelling over ``threadIdx``: the
  component is its last token.
* ``for`` statements list only the parts that exist; which child is the init, condition or
  increment is decided from the positions of the header's two top-level semicolons.
* Operator kinds come from ``clang_getCursor{Unary,Binary}OperatorKind`` via ctypes.
"""

from __future__ import annotations

import ctypes
import functools

from clang import cindex

from s2s.frontend.core import token_text
from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.toolchain import configure_libclang
from s2s.model import kernel_ir as ir

BUILTIN_VARS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
INT_TYPES = frozenset({"BOOL", "CHAR_U", "UCHAR", "CHAR16", "CHAR32", "USHORT", "UINT", "ULONG",
                       "ULONGLONG", "UINT128", "CHAR_S", "SCHAR", "WCHAR", "SHORT", "INT", "LONG",
                       "LONGLONG", "INT128", "ENUM"})
FLOAT_TYPES = frozenset({"HALF", "FLOAT", "DOUBLE", "LONGDOUBLE", "FLOAT16", "BFLOAT16"})
ARRAY_TYPES = frozenset({"CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY",
                         "DEPENDENTSIZEDARRAY"})
TRANSPARENT = frozenset({"UNEXPOSED_EXPR", "PAREN_EXPR"})
CASTS = frozenset({"CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                   "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR"})
FOLDABLE = frozenset({"INTEGER_LITERAL", "CXX_BOOL_LITERAL_EXPR", "CHARACTER_LITERAL",
                      "CXX_UNARY_EXPR", "DECL_REF_EXPR"})
# CXUnaryOperatorKind values.
UNARY_OPS = {1: "post++", 2: "post--", 3: "pre++", 4: "pre--", 5: "&", 6: "*", 7: "+", 8: "-",
             9: "~", 10: "!"}
BINARY_OPS = {
    "Mul": "*", "Div": "/", "Rem": "%", "Add": "+", "Sub": "-", "Shl": "<<", "Shr": ">>",
    "LT": "<", "GT": ">", "LE": "<=", "GE": ">=", "EQ": "==", "NE": "!=", "And": "&", "Xor": "^",
    "Or": "|", "LAnd": "&&", "LOr": "||", "Comma": ",", "Assign": "=", "MulAssign": "*=",
    "DivAssign": "/=", "RemAssign": "%=", "AddAssign": "+=", "SubAssign": "-=",
    "ShlAssign": "<<=", "ShrAssign": ">>=", "AndAssign": "&=", "XorAssign": "^=",
    "OrAssign": "|=",
}
ASSIGN_OPS = frozenset(op for op in BINARY_OPS.values()
                       if op.endswith("=") and op not in ("<=", ">=", "==", "!="))
_EVAL_INT, _EVAL_FLOAT = 1, 2


@functools.cache
def _lib():
    """ctypes entry points the Python bindings lack (constant evaluation, unary operators)."""
    lib = configure_libclang().conf.lib
    evaluate = lib.clang_Cursor_Evaluate
    evaluate.argtypes, evaluate.restype = [cindex.Cursor], ctypes.c_void_p
    for name, restype in (("clang_EvalResult_getKind", ctypes.c_int),
                          ("clang_EvalResult_getAsLongLong", ctypes.c_longlong),
                          ("clang_EvalResult_isUnsignedInt", ctypes.c_uint),
                          ("clang_EvalResult_getAsUnsigned", ctypes.c_ulonglong),
                          ("clang_EvalResult_getAsDouble", ctypes.c_double),
                          ("clang_EvalResult_dispose", None)):
        func = getattr(lib, name)
        func.argtypes, func.restype = [ctypes.c_void_p], restype
    unary = lib.clang_getCursorUnaryOperatorKind
    unary.argtypes, unary.restype = [cindex.Cursor], ctypes.c_int
    return lib


def evaluate_cursor(cursor):
    """The value clang folds ``cursor`` to (int or float), or None when it is not constant."""
    lib = _lib()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(result)
        if kind == _EVAL_INT:
            if lib.clang_EvalResult_isUnsignedInt(result):
                return int(lib.clang_EvalResult_getAsUnsigned(result))
            return int(lib.clang_EvalResult_getAsLongLong(result))
        if kind == _EVAL_FLOAT:
            return float(lib.clang_EvalResult_getAsDouble(result))
        return None
    finally:
        lib.clang_EvalResult_dispose(result)


def type_kind(ctype) -> str:
    """``int``, ``float``, ``pointer``, ``array`` or ``other`` for a clang type."""
    canonical = ctype.get_canonical()
    name = canonical.kind.name
    if name in INT_TYPES:
        return "int"
    if name in FLOAT_TYPES:
        return "float"
    if name == "POINTER":
        return "pointer"
    if name in ARRAY_TYPES:
        return "array"
    return "other"


def _pointee_size(ctype, scalar: bool = True) -> int | None:
    """Bytes of what a pointer (or an array parameter) points to. ``scalar``: for a pointer to
    rows (``float (*c)[NY][NX]``, ``float c[][NY][NX]``) the size of one scalar element, the
    unit of the flat index ``flat_rows`` gives its subscripts."""
    canonical = ctype.get_canonical()
    pointee = canonical.get_pointee() if canonical.kind.name == "POINTER" else canonical.element_type
    while scalar and pointee.get_canonical().kind.name == "CONSTANTARRAY":
        pointee = pointee.get_canonical().element_type
    size = pointee.get_size()
    return size if size and size > 0 else None


def row_extents(ctype, parameter: bool = False) -> tuple[int, ...] | None:
    """The extents of the rows a pointer points to (``float (*)[NY][NX]``: ``(NY, NX)``), or
    an array ``parameter`` (``float c[][NY][NX]``, which is such a pointer); None for any other
    type (local and shared arrays are not memory the access model records)."""
    canonical = ctype.get_canonical()
    if canonical.kind.name == "POINTER":
        row = canonical.get_pointee().get_canonical()
    elif parameter and canonical.kind.name in ("INCOMPLETEARRAY", "CONSTANTARRAY"):
        row = canonical.element_type.get_canonical()
    else:
        return None
    extents = []
    while row.kind.name == "CONSTANTARRAY":
        extents.append(row.element_count)
        row = row.element_type.get_canonical()
    return tuple(extents) or None


_FILE_SCOPES = frozenset({"TRANSLATION_UNIT", "NAMESPACE", "LINKAGE_SPEC"})
_ARRAY_TYPES = frozenset({"CONSTANTARRAY", "INCOMPLETEARRAY"})


def _is_global_array(decl) -> bool:
    """Is ``decl`` an array variable of file or namespace scope (``__constant__ float f[9]``)?"""
    if decl is None or decl.kind.name != "VAR_DECL":
        return False
    parent = decl.semantic_parent
    return (parent is not None and parent.kind.name in _FILE_SCOPES
            and decl.type.get_canonical().kind.name in _ARRAY_TYPES)


def _attrs(cursor) -> set[str]:
    return {child.kind.name for child in cursor.get_children() if child.kind.is_attribute()}


def extract_kernel_bodies(ctx: ExtractContext) -> tuple[ir.KernelBody, ...]:
    """Every ``__global__`` and ``__device__`` function defined in the main file, lowered."""
    bodies = []
    seen = set()
    for node in ctx.nodes():
        if node.kind not in ("FUNCTION_DECL", "FUNCTION_TEMPLATE") or not node.cursor.is_definition():
            continue
        attrs = _attrs(node.cursor)
        is_global = "CUDAGLOBAL_ATTR" in attrs
        if not is_global and "CUDADEVICE_ATTR" not in attrs:
            continue
        key = (node.cursor.spelling, node.cursor.extent.start.offset)
        if key in seen:
            continue
        seen.add(key)
        body = _Lowering(ctx, node.template).function(node.cursor, is_global)
        if body is not None:
            bodies.append(body)
    return tuple(bodies)


def lowering(ctx: ExtractContext, template: str | None) -> _Lowering:
    """The cursor -> IR lowering (also for host expressions: ``host_facts.extract_host_args``)."""
    return _Lowering(ctx, template)


class _Lowering:
    """Cursor -> IR for one function (``template`` flags spans inside templates)."""

    def __init__(self, ctx: ExtractContext, template: str | None):
        self.ctx = ctx
        self.template = template

    def span(self, cursor):
        return self.ctx.span(cursor, self.template)

    def function(self, cursor, is_global: bool) -> ir.KernelBody | None:
        params, template_params, body = [], [], None
        for child in cursor.get_children():
            kind = child.kind.name
            if kind == "PARM_DECL":
                ptype = child.type
                pkind = type_kind(ptype)
                if pkind == "array":
                    pkind = "pointer"
                size = _pointee_size(ptype) if pkind == "pointer" else None
                const = False
                if pkind == "pointer":
                    canonical = ptype.get_canonical()
                    pointee = (canonical.get_pointee() if canonical.kind.name == "POINTER"
                               else canonical.element_type)
                    const = pointee.is_const_qualified()
                params.append(ir.IrParam(child.spelling, pkind, size, const))
            elif kind in ("TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER",
                          "TEMPLATE_TEMPLATE_PARAMETER"):
                template_params.append(child.spelling)
            elif kind == "COMPOUND_STMT":
                body = self.stmt(child)
        if body is None:
            return None
        return ir.KernelBody(cursor.spelling, is_global, tuple(params), body, self.span(cursor),
                             tuple(template_params))

    # --- statements ---------------------------------------------------------------------

    def stmt(self, cursor):
        kind = cursor.kind.name
        children = list(cursor.get_children())
        if kind == "COMPOUND_STMT":
            stmts = []
            for child in children:
                lowered = self.stmt(child)
                if isinstance(lowered, ir.Block) and child.kind.name == "DECL_STMT":
                    stmts.extend(lowered.stmts)  # declarations stay in the enclosing scope
                else:
                    stmts.append(lowered)
            return ir.Block(tuple(stmts))
        if kind == "DECL_STMT":
            decls = [self.decl(c) for c in children if c.kind.name == "VAR_DECL"]
            return decls[0] if len(decls) == 1 else ir.Block(tuple(decls))
        if kind == "IF_STMT":
            exprs = list(children)
            while len(exprs) > 2 and exprs[0].kind.name == "DECL_STMT":
                exprs.pop(0)    # ``if (int k = f())``: the condition's variable, not a branch
            if len(exprs) < 2:          # (an if libclang gives without its parts: opaque)
                return ir.OpaqueStmt(kind, (), self.span(cursor))
            cond, then = self.expr(exprs[0]), self.stmt(exprs[1])
            other = self.stmt(exprs[2]) if len(exprs) > 2 else None
            return ir.If(cond, then, other)
        if kind == "FOR_STMT":
            return self.for_stmt(cursor, children)
        if kind == "WHILE_STMT":
            return ir.While(self.expr(children[0]), self.stmt(children[-1]))
        if kind == "DO_STMT":
            return ir.While(self.expr(children[-1]), self.stmt(children[0]), do_while=True)
        if kind == "RETURN_STMT":
            return ir.Return(self.expr(children[0]) if children else None)
        if kind == "BREAK_STMT":
            return ir.Break()
        if kind == "CONTINUE_STMT":
            return ir.Continue()
        if kind == "NULL_STMT":
            return ir.Block(())
        if cursor.kind.is_expression():
            return ir.ExprStmt(self.expr(cursor))
        statements = [c for c in children if c.kind.is_statement()]
        if kind in ("UNEXPOSED_STMT", "ATTRIBUTED_STMT") and len(statements) == len(children) == 1:
            return self.stmt(statements[0])  # ``#pragma unroll`` wraps the loop it annotates
        parts = tuple(self.stmt(c) if c.kind.is_statement() else self.expr(c) for c in children
                      if c.kind.is_statement() or c.kind.is_expression())
        return ir.OpaqueStmt(kind, parts, self.span(cursor))

    def decl(self, cursor) -> ir.Decl:
        kind = type_kind(cursor.type)
        init = None
        if kind != "array":
            exprs = [c for c in cursor.get_children() if c.kind.is_expression()]
            init = self.expr(exprs[-1]) if exprs else None
        size = (_pointee_size(cursor.type, kind == "pointer") if kind in ("pointer", "array")
                else None)
        return ir.Decl(cursor.spelling, kind, init, size, self.span(cursor))

    def for_stmt(self, cursor, children) -> ir.For:
        """Assign the present children to init / cond / step by the header's semicolons."""
        semis, close = _for_header(cursor)
        init = cond = step = None
        body = self.stmt(children[-1])
        for child in children[:-1]:
            at = child.extent.start.offset
            if len(semis) < 2 or at < semis[0]:
                init = self.stmt(child)
            elif at < semis[1]:
                cond = self.expr(child)
            elif close is None or at < close:
                step = self.expr(child)
        return ir.For(init, cond, step, body)

    # --- expressions --------------------------------------------------------------------

    def expr(self, cursor):
        kind = cursor.kind.name
        if kind in FOLDABLE or (kind in TRANSPARENT and type_kind(cursor.type) == "int"):
            value = evaluate_cursor(cursor) if self._foldable(cursor, kind) else None
            if isinstance(value, int):
                return ir.IntConst(value)
        children = list(cursor.get_children())
        if kind in TRANSPARENT:
            if len(children) == 1:
                return self.expr(children[0])
            return ir.Opaque(kind, tuple(self.expr(c) for c in children), self.span(cursor))
        if kind == "INTEGER_LITERAL":
            return ir.IntConst(0)  # unreachable: literals always fold
        if kind == "FLOATING_LITERAL":
            value = evaluate_cursor(cursor)
            return ir.FloatConst(value if isinstance(value, float) else 0.0)
        if kind == "DECL_REF_EXPR":
            name = cursor.spelling
            if name == "warpSize":
                return ir.Builtin("warpSize", "")
            return ir.Var(name, _is_global_array(cursor.referenced))
        if kind == "MEMBER_REF_EXPR":
            return self.member(cursor, children)
        if kind == "ARRAY_SUBSCRIPT_EXPR":
            flat = self.flat_rows(cursor)
            if flat is not None:
                return flat
            return ir.Index(self.expr(children[0]), self.expr(children[1]), self.span(cursor))
        if kind == "UNARY_OPERATOR":
            op = UNARY_OPS.get(_lib().clang_getCursorUnaryOperatorKind(cursor))
            if op is None or not children:
                return ir.Opaque("unary", tuple(self.expr(c) for c in children), self.span(cursor))
            return ir.Unary(op, self.expr(children[0]))
        if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR"):
            return self.binary(cursor, children)
        if kind == "CONDITIONAL_OPERATOR":
            return ir.Cond(*(self.expr(c) for c in children[:3]))
        if kind == "CALL_EXPR":
            return self.call(cursor)
        if kind in CASTS:
            operand = [c for c in children if c.kind.is_expression()]
            target = type_kind(cursor.type)
            size = _pointee_size(cursor.type) if target == "pointer" else None
            inner = self.expr(operand[-1]) if operand else ir.Opaque(kind)
            return ir.Cast(target if target in ("int", "float", "pointer") else "other", inner,
                           size)
        return ir.Opaque(kind, tuple(self.expr(c) for c in children if c.kind.is_expression()),
                         self.span(cursor))

    def flat_rows(self, cursor):
        """``c[z][y][x]`` on a pointer to rows (``float c[][NY][NX]``) as the flat element
        ``c[(z * NY + y) * NX + x]`` (the parameter's element size is one scalar's); a row
        ``c[z]`` used as a value is the address ``c + z * NY * NX``. None for subscripts of
        anything else (plain pointers, local and shared arrays keep their own rules)."""
        chain, node = [], cursor
        while node is not None and node.kind.name == "ARRAY_SUBSCRIPT_EXPR":
            base, index = list(node.get_children())[:2]
            chain.append(index)
            node = base
            while node.kind.name in TRANSPARENT and len(list(node.get_children())) == 1:
                node = next(node.get_children())
        ref = node.referenced if node.kind.name == "DECL_REF_EXPR" else None
        extents = row_extents(node.type, ref is not None and ref.kind.name == "PARM_DECL")
        if extents is None or len(chain) > len(extents) + 1:
            return None
        chain.reverse()
        flat = self.expr(chain[0])
        for extent, index in zip(extents, chain[1:], strict=False):
            flat = ir.Binary("+", ir.Binary("*", flat, ir.IntConst(extent)), self.expr(index))
        rest = 1
        for extent in extents[len(chain) - 1:]:
            rest *= extent
        if rest != 1:                               # a row, not a scalar: its address
            return ir.Binary("+", self.expr(node), ir.Binary("*", flat, ir.IntConst(rest)))
        return ir.Index(self.expr(node), flat, self.span(cursor))

    def _foldable(self, cursor, kind: str) -> bool:
        if kind != "DECL_REF_EXPR":
            return True
        ref = cursor.referenced
        if ref is None:
            return False
        if ref.kind.name == "ENUM_CONSTANT_DECL":
            return True
        return ref.kind.name == "VAR_DECL" and ref.type.is_const_qualified()

    def member(self, cursor, children):
        base = children[0] if children else None
        while base is not None and base.kind.name in TRANSPARENT:
            inner = list(base.get_children())
            base = inner[0] if len(inner) == 1 else None
        if base is not None and base.kind.name == "DECL_REF_EXPR" and base.spelling in BUILTIN_VARS:
            tokens = [text for _token, text in token_text.spellings(cursor)]
            component = tokens[-1] if tokens and tokens[-1] in ("x", "y", "z") else (
                cursor.spelling if cursor.spelling in ("x", "y", "z") else "")
            return ir.Builtin(base.spelling, component)
        if not children:
            return ir.Opaque("member", (), self.span(cursor))
        arrow = type_kind(children[0].type) == "pointer"
        kind = type_kind(cursor.type)
        if kind != "pointer":
            return ir.Member(self.expr(children[0]), cursor.spelling, arrow, kind)
        pointee = cursor.type.get_canonical().get_pointee()
        return ir.Member(self.expr(children[0]), cursor.spelling, arrow, kind,
                         _pointee_size(cursor.type), pointee.is_const_qualified())

    def binary(self, cursor, children):
        try:
            name = cursor.binary_operator.name
        except (ValueError, AttributeError):
            name = ""
        op = BINARY_OPS.get(name)
        if op is None or len(children) != 2:
            return ir.Opaque("binary", tuple(self.expr(c) for c in children), self.span(cursor))
        lhs, rhs = self.expr(children[0]), self.expr(children[1])
        if op.endswith("=") and op not in ("<=", ">=", "==", "!="):
            return ir.Assign(op, lhs, rhs)
        return ir.Binary(op, lhs, rhs)

    def call(self, cursor):
        ref = cursor.referenced
        args = tuple(self.expr(a) for a in cursor.get_arguments())
        if ref is not None and ref.kind.name == "CONSTRUCTOR":
            return ir.Opaque("construct", args, self.span(cursor))
        name = cursor.spelling
        if name.startswith("operator") and name[8:] in ASSIGN_OPS and len(args) == 2:
            return ir.Assign(name[8:], args[0], args[1])  # struct assignment (float4 a = b)
        device = False
        if ref is not None and ref.kind.name in ("FUNCTION_DECL", "FUNCTION_TEMPLATE"):
            location = ref.location
            device = (not location.is_in_system_header and location.file is not None
                      and "CUDADEVICE_ATTR" in _attrs(ref))
        return ir.Call(name, args, device, self.span(cursor))


def _for_header(cursor) -> tuple[list[int], int | None]:
    """Byte offsets of the two top-level ``;`` of a ``for`` header and of its ``)``."""
    depth, semis = 0, []
    for token, text in token_text.spellings(cursor):
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
            if depth == 0:
                return semis, token.extent.start.offset
        elif text == ";" and depth == 1:
            semis.append(token.extent.start.offset)
    return semis, None


__all__ = ["extract_kernel_bodies", "type_kind"]
