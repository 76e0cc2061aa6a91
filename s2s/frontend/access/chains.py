"""Storage expressions of host code: what a chain of subscripts, dereferences and members
denotes (the name, its root node, the subscripts), read from the main-file tree.

The questions :mod:`s2s.frontend.access.refs` asks of every node before it classifies it; kept
apart because the call and pointer-copy rules (``access.calls``, ``access.copies``) ask them
too. :class:`StorageChains` is a mixin of the access scanner: it reads the scanner's tree
arrays (``nodes``, ``kinds``, ``parent``, ``children``) and its memo dictionaries, which the
scanner's ``__init__`` sets up. Node facts are memoised because each costs libclang calls.
"""

from __future__ import annotations

import ctypes

from clang import cindex

from s2s.frontend.core import token_text
from s2s.frontend.core.fast_cursor import canonical_type, type_kind
from s2s.frontend.core.toolchain import configure_libclang
from s2s.frontend.cuda.kernel_body import evaluate_cursor
from s2s.frontend.host import containers
from s2s.frontend.host.alloc import size_factor
from s2s.frontend.host.tree import ARRAY_TYPE_KINDS
from s2s.model.span import Expr

#: Nodes whose value is the operand's storage or value (casts, parentheses, implicit casts).
TRANSPARENT = frozenset({"PAREN_EXPR", "UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR",
                         "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
                         "CXX_CONST_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR"})
FUNCTION_TYPES = frozenset({"FUNCTIONPROTO", "FUNCTIONNOPROTO"})

# clang's CXUnaryOperatorKind and CXBinaryOperatorKind values.
POST_INC, POST_DEC, PRE_INC, PRE_DEC, ADDR_OF, DEREF = 1, 2, 3, 4, 5, 6
INC_DEC = frozenset({POST_INC, POST_DEC, PRE_INC, PRE_DEC})
ADD, SUB = cindex.BinaryOperator.Add.value, cindex.BinaryOperator.Sub.value
ASSIGN = cindex.BinaryOperator.Assign.value
ADD_ASSIGN, SUB_ASSIGN = cindex.BinaryOperator.AddAssign.value, cindex.BinaryOperator.SubAssign.value
LOGICAL = frozenset({cindex.BinaryOperator.LAnd.value, cindex.BinaryOperator.LOr.value})

_OPS: list = []


def operator_functions():
    """clang_getCursor{Unary,Binary}OperatorKind and clang_Cursor_getVarDeclInitializer,
    called directly: the bindings have no unary one nor the initializer, and their binary
    property builds an enum object per call."""
    if not _OPS:
        lib = configure_libclang().conf.lib
        for name in ("clang_getCursorUnaryOperatorKind", "clang_getCursorBinaryOperatorKind"):
            func = getattr(lib, name)
            func.argtypes = [cindex.Cursor]
            func.restype = ctypes.c_int
            _OPS.append(func)
        init = lib.clang_Cursor_getVarDeclInitializer
        init.argtypes = [cindex.Cursor]
        init.restype = cindex.Cursor
        _OPS.append(init)
    return _OPS


class StorageChains:
    """Node facts and storage chains (a mixin of the access scanner, see the module doc)."""

    def _op(self, i: int, func) -> int:
        got = self._ops.get(i)
        if got is None:
            got = self._ops[i] = func(self.nodes[i].cursor)
        return got

    def _type(self, i: int):
        """The canonical type of node ``i``."""
        got = self._types.get(i)
        if got is None:
            got = self._types[i] = canonical_type(self.nodes[i].cursor)
        return got

    def _type_kind(self, i: int) -> str:
        return type_kind(self._type(i))

    def _is_pointer(self, i: int) -> bool:
        """Pointer- or array-typed, and not a pointer to a function."""
        canon = self._type(i)
        kind = type_kind(canon)
        if kind == "POINTER":
            return canon.get_pointee().get_canonical().kind.name not in FUNCTION_TYPES
        return kind in ARRAY_TYPE_KINDS

    def _strip(self, i: int) -> int:
        """Down through parentheses, casts and implicit conversions."""
        kinds, children = self.kinds, self.children
        while kinds[i] in TRANSPARENT and children[i]:
            i = children[i][-1]
        return i

    def _is_deref(self, i: int) -> bool:
        return self.kinds[i] == "UNARY_OPERATOR" and self._op(i, self._unop) == DEREF

    def _subscript_parts(self, i: int) -> tuple[int, int] | None:
        """(base, index) of a subscript; the base is the pointer- or array-typed side."""
        kids = self.children[i]
        if len(kids) != 2:
            return None
        first, second = kids
        if self._is_pointer(second) and not self._is_pointer(first):
            return second, first  # i[a]
        return first, second

    def _is_storage(self, i: int) -> bool:
        """Does node ``i`` denote storage reached through a pointer or array?"""
        got = self._storage.get(i)
        if got is not None:
            return got
        kind = self.kinds[i]
        if kind == "ARRAY_SUBSCRIPT_EXPR":
            got = True
        elif kind == "UNARY_OPERATOR":
            got = self._op(i, self._unop) == DEREF
        elif kind == "CALL_EXPR":
            got = self.vectors and containers.subscript(self, i) is not None
        elif kind == "MEMBER_REF_EXPR" and self.children[i]:
            base = self._strip(self.children[i][0])
            if self.kinds[base] in ("ARRAY_SUBSCRIPT_EXPR", "UNARY_OPERATOR", "MEMBER_REF_EXPR") \
                    and self._is_storage(base):
                got = True  # a member of an element, or of a struct reached through a pointer
            elif self._type_kind(self.children[i][0]) == "POINTER":
                got = not self._is_pointer(i) and self._is_field(i)
            else:
                got = False
        else:
            got = False
        self._storage[i] = got
        return got

    def _is_field(self, i: int) -> bool:
        """A data member (``ps->get`` names a method, ``ps->count`` may be a static member)."""
        ref = self.nodes[i].cursor.referenced
        return ref is None or ref.kind.name == "FIELD_DECL"

    def _context(self, i: int) -> tuple[int, int]:
        """(first non-transparent ancestor, its child on the way up) of node ``i``."""
        parent, kinds = self.parent, self.kinds
        child, up = i, parent[i]
        while up >= 0 and kinds[up] in TRANSPARENT:
            child, up = up, parent[up]
        return up, child

    def _continues(self, up: int, child: int) -> bool:
        """Is ``child`` the base of the storage expression ``up`` (same access chain)?"""
        kind = self.kinds[up]
        if kind == "ARRAY_SUBSCRIPT_EXPR":
            parts = self._subscript_parts(up)
            return parts is not None and parts[0] == child
        if kind == "UNARY_OPERATOR":
            return self._is_deref(up)
        if kind == "MEMBER_REF_EXPR":
            return self.children[up][:1] == [child] and self._is_storage(up)
        return False

    def _name(self, i: int) -> str | None:
        """``u``, ``p.x``, ``ps->vx``, ``x`` (for ``this->x``) for a variable or member chain,
        else None."""
        parts = []
        kinds, children = self.kinds, self.children
        while True:
            kind = kinds[i]
            if kind == "DECL_REF_EXPR":
                parts.append(self.nodes[i].cursor.spelling)
                break
            if kind == "CXX_THIS_EXPR":
                parts.append("this")
                break
            if kind != "MEMBER_REF_EXPR":
                return None
            member = self.nodes[i].cursor.spelling
            if not member:
                return None
            kids = children[i]
            if not kids:  # a member named without this-> inside a method
                parts.append(member)
                break
            parts.append(("->" if self._type_kind(kids[0]) == "POINTER" else ".") + member)
            i = self._strip(kids[0])
        name = "".join(reversed(parts))
        if name.startswith("this->") and len(parts) > 1:
            name = name[len("this->"):]  # a member function names its members either way
        return name or None

    def _expr(self, i: int) -> Expr:
        """The text of node ``i`` as written; a macro argument (empty extent) by name; an
        index written through a macro (``IDX(i, j)``) as its expansion when that is plain
        integer arithmetic (the span still names the macro)."""
        expr = self.tree.expr(i)
        if expr.span.macro is not None:
            expanded = self._render(i, 0)
            if expanded:
                return Expr(expanded, expr.span)
        if not expr.text:
            stripped = self._strip(i)
            text = self._name(stripped) or self.nodes[stripped].cursor.spelling
            if text:
                return Expr(text, expr.span)
        return expr

    def _render(self, i: int, depth: int) -> str | None:
        """Integer arithmetic of names and literals printed back from the tree (used where
        the source text is a macro call); None for anything else."""
        if depth > 40:
            return None
        kind, kids = self.kinds[i], self.children[i]
        cursor = self.nodes[i].cursor
        if kind in ("UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR") and kids:
            return self._render(kids[-1], depth + 1)
        if kind == "PAREN_EXPR" and len(kids) == 1:
            inner = self._render(kids[0], depth + 1)
            return f"({inner})" if inner else None
        if kind == "DECL_REF_EXPR" and cursor.spelling:
            return cursor.spelling
        if kind == "INTEGER_LITERAL":
            tokens = [text for _token, text in token_text.spellings(cursor)]
            if len(tokens) == 1 and tokens[0].isdigit():
                return tokens[0]
            # written in a macro's body (TeaLeaf's ``kx[index + 1]`` in ``tealeaf_SMVP(u)``):
            # the literal's tokens are the macro call's, its value is clang's
            value = evaluate_cursor(cursor)
            return str(value) if isinstance(value, int) and value >= 0 else None
        if kind == "BINARY_OPERATOR" and len(kids) == 2 and cursor.spelling in ("+", "-", "*",
                                                                                  "/", "%"):
            left, right = self._render(kids[0], depth + 1), self._render(kids[1], depth + 1)
            return f"{left} {cursor.spelling} {right}" if left and right else None
        return None

    def _resolve(self, i: int) -> tuple[str, int, list[Expr]] | None:
        """(name, root node, subscripts) of the storage expression (or pointer) at ``i``."""
        subs: list[Expr] = []
        kinds, children = self.kinds, self.children
        x = self._strip(i)
        while True:
            kind = kinds[x]
            if kind == "ARRAY_SUBSCRIPT_EXPR":
                parts = self._subscript_parts(x)
                if parts is None:
                    return None
                subs.insert(0, self._expr(parts[1]))
                x = self._strip(parts[0])
            elif kind == "CALL_EXPR":
                parts = containers.subscript(self, x)
                if parts is None:
                    return None
                subs.insert(0, self._expr(parts[1]))
                x = parts[0]
            elif kind == "UNARY_OPERATOR":
                if not children[x] or self._op(x, self._unop) not in INC_DEC | {DEREF}:
                    return None
                x = self._strip(children[x][0])
            elif kind == "BINARY_OPERATOR" and len(children[x]) == 2:
                op = self._op(x, self._binop)
                left, right = children[x]
                if op not in (ADD, SUB):
                    return None
                if self._is_pointer(left):
                    pointer, offset = left, right
                elif op == ADD and self._is_pointer(right):
                    pointer, offset = right, left
                else:
                    return None
                if not subs:
                    expr = self._expr(offset)
                    if op == SUB:
                        expr = Expr("-" + size_factor(expr.text), expr.span)
                    subs.append(expr)
                x = self._strip(pointer)
            elif kind == "MEMBER_REF_EXPR":
                name = self._name(x)
                if name is not None:
                    return name, x, subs
                if not children[x]:
                    return None
                # ``d_a[i].link[j].e[k]``: the subscripts after a member index the
                # member's own array, not the storage behind the pointer (only ``i`` does)
                subs = []
                x = self._strip(children[x][0])
            else:
                name = self._name(x)
                return None if name is None else (name, x, subs)
