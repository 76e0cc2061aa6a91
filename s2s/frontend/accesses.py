"""Array accesses (``ArrayRef``) and pointer copies (``PointerCopy``) of host code.

What data-mapping analysis works from: for every expression that reads or writes storage
through a pointer- or array-typed expression, the accessed name, the subscripts, the mode and
the target region it runs in; and every copy of a pointer between names. OpenMP files are
parsed without ``-fopenmp``, so a target region's body is ordinary code: an access belongs to
the innermost target region (``OmpDirective.is_target_region``) whose ``stmt_span`` contains it.

One pass over the cached main-file walk (``ctx.nodes()``, rebuilt as a tree by host.py), with
no second walk of libclang's cursors. An access is the *outermost* storage expression of a
chain: ``g[i][j]`` is one access of ``g`` with subscripts ``(i, j)``, ``ps->vx[i]`` one of
``ps->vx`` (the load of the member pointer is part of the path, not an access of its own),
``p[i].x`` one of ``p`` at ``(i)`` (a member of an element lives in the element's storage).

Choices (documented in the tests too):

* ``*p`` has subscripts ``()``; ``*(p + k)`` has ``(k,)`` (like ``p[k]``); ``*(p - k)`` has
  ``(-k,)``; an offset under a subscript (``(p + 1)[i]``) is dropped: ``(i,)``.
* ``ps->n`` (a scalar member through a pointer) is an access of ``ps->n``, root ``ps``;
  ``(*ps).n`` is one of ``ps`` with ``()``. A member of a plain struct variable (``s.n``) is not
  an access; a pointer-typed member read (``ps->x`` in ``if (ps->x)``) is a name use, not one.
* ``pp[i][j]`` through ``double **pp`` is one access of ``pp`` at ``(i, j)``; ``pp[i]->x[j]``
  likewise of ``pp``.
* A pointer-valued call argument gives an access with ``call``/``arg_index``: a name (``u``,
  ``p.x``, ``ps->vx``), ``a + k``, ``&a[k]`` or an array row ``g[i]``; its subscripts are the
  start offset when one is written (``(k,)``, ``(i,)``), else ``()``. ``&s`` of a struct
  variable counts too (array ``s``). A pointer loaded from storage (``atoi(argv[1])``) is a
  plain read of that storage (``argv`` at ``(1,)``), not a call access. Mode: ``read`` when
  the parameter points to const, ``readwrite`` otherwise or when no declaration is visible;
  ``free``-like calls are skipped, ``memset``/``memcpy``/``memmove`` and the stdio family have
  fixed modes, and a non-character pointer given to a ``printf``-like ``...`` is an address
  being printed (``%p``), not an access.
* ``conditional`` is True when an ``if``/``else`` branch, a ``switch`` body, the second or
  third operand of ``?:``, the right side of ``&&``/``||`` or a ``catch`` lies between the
  access and its target region's statement (device) or its function body (host). Conditions
  themselves and loop bodies are not conditional.
* Code from macro expansions and templates is reported like any other (the span says so);
  a subscript written in a macro body has the macro call's text. In a template a dependent
  ``v[i]`` is taken as an array access. Other overloaded ``operator[]`` is not; a
  ``std::vector``'s is (frontend.containers: ``v[i]``, ``v.data()``, ``&v[k]``, other uses).
* ``this->x`` and ``x`` in a member function are the same name, ``x``.
* ``PointerCopy.source`` is a name (``a`` for ``a``, ``a + k``, ``&a[k]``, ``g[i]`` of an
  array, the last with ``offset``), ``&s`` for the address of a struct variable, else None.
  ``p += k``, ``p++`` are copies of ``p`` to itself with ``offset``. Targets are pointer-typed
  names (variables, members); ``pp[i] = q`` is not a copy (it is a write of ``pp``).
"""

from __future__ import annotations

import bisect
import ctypes
import re

from clang import cindex

from s2s.frontend import containers, token_text
from s2s.frontend.callees import pointer_callee
from s2s.frontend.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.host import (
    ARRAY_TYPE_KINDS,
    LAUNCH_CONFIG,
    _callee_name,
    _factor,
    _header,
    _is_host_code,
    _Tree,
    _tree,
    cuda_role,
)
from s2s.frontend.toolchain import configure_libclang
from s2s.model.access import ArrayRef, PointerCopy
from s2s.model.span import Expr

#: Nodes whose value is the operand's storage or value (casts, parentheses, implicit casts).
TRANSPARENT = frozenset({"PAREN_EXPR", "UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR",
                         "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
                         "CXX_CONST_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR"})
#: Subtrees that are never evaluated (``sizeof``, ``alignof``) or never hold accesses.
SKIP_SUBTREE = frozenset({"CXX_UNARY_EXPR", "STATIC_ASSERT", "TYPE_ALIAS_DECL", "TYPEDEF_DECL"})
FUNCTION_TYPES = frozenset({"FUNCTIONPROTO", "FUNCTIONNOPROTO"})
CHAR_TYPES = frozenset({"CHAR_S", "CHAR_U", "SCHAR", "UCHAR", "WCHAR", "CHAR16", "CHAR32"})
RECORD_TYPES = frozenset({"RECORD", "ELABORATED"})

# clang's CXUnaryOperatorKind and CXBinaryOperatorKind values.
POST_INC, POST_DEC, PRE_INC, PRE_DEC, ADDR_OF, DEREF = 1, 2, 3, 4, 5, 6
INC_DEC = frozenset({POST_INC, POST_DEC, PRE_INC, PRE_DEC})
ADD, SUB = cindex.BinaryOperator.Add.value, cindex.BinaryOperator.Sub.value
ASSIGN = cindex.BinaryOperator.Assign.value
ADD_ASSIGN, SUB_ASSIGN = cindex.BinaryOperator.AddAssign.value, cindex.BinaryOperator.SubAssign.value
LOGICAL = frozenset({cindex.BinaryOperator.LAnd.value, cindex.BinaryOperator.LOr.value})

#: Calls whose pointer arguments are not data accesses (deallocation).
NOT_ACCESS = frozenset({"free", "cfree", "cudaFree", "cudaFreeHost", "cudaFreeArray",
                        "omp_target_free", "_mm_free", "cudaHostUnregister"})
#: Library calls with fixed argument modes: name -> (modes by position, mode of the rest).
FIXED_MODES: dict[str, tuple[dict[int, str], str | None]] = {
    "memset": ({0: "write"}, None), "bzero": ({0: "write"}, None),
    "memcpy": ({0: "write", 1: "read"}, None), "memmove": ({0: "write", 1: "read"}, None),
    "realloc": ({0: "read"}, None),
    "cudaMemcpy": ({0: "write", 1: "read"}, None), "cudaMemcpyAsync": ({0: "write", 1: "read"}, None),
    "cudaMemset": ({0: "write"}, None), "cudaMemsetAsync": ({0: "write"}, None),
    "omp_target_memcpy": ({0: "write", 1: "read"}, None),
    "fread": ({0: "write"}, None), "fwrite": ({0: "read"}, None),
    "sprintf": ({0: "write"}, "read"), "snprintf": ({0: "write"}, "read"),
    "scanf": ({}, "write"), "fscanf": ({}, "write"), "sscanf": ({0: "read"}, "write"),
}
#: Functions whose variadic pointer arguments are printed: only strings are read.
PRINTF_LIKE = frozenset({"printf", "fprintf", "sprintf", "snprintf", "dprintf", "printf_s",
                         "fprintf_s"})
_IDENT = re.compile(r"[A-Za-z_]\w*")


def extract_accesses(ctx: ExtractContext, directives=()) -> tuple[tuple[ArrayRef, ...],
                                                                   tuple[PointerCopy, ...]]:
    """Every array access and pointer copy of the main file's host code, in source order.

    ``directives`` is the file's OmpDirective tuple (``ArrayRef.directive`` indexes it).
    Code in ``__global__`` and ``__device__``-only functions is skipped (CUDA host code only).
    """
    scanner = _Scanner(_tree(ctx), directives)
    scanner.run()
    return (tuple(sorted(scanner.refs, key=_source_order)),
            tuple(sorted(scanner.copies, key=_source_order)))


def _source_order(item) -> tuple[int, int]:
    # Stable: accesses sharing an (empty, macro-argument) extent keep their walk order.
    return item.span.start, item.span.end


_OPS: list = []


def _operator_functions():
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


class _Scanner:
    """The walk: classifies storage expressions, calls and pointer assignments."""

    def __init__(self, tree: _Tree, directives):
        self.tree = tree
        self.nodes = tree.nodes
        self.kinds = tree.kinds
        self.parent = tree.parent
        self.children = tree.children
        self.src = tree.ctx.source
        self.refs: list[ArrayRef] = []
        self.copies: list[PointerCopy] = []
        #: the unit can hold std::vector (frontend.containers); else its checks are skipped
        self.vectors = containers.unit_has_vectors(tree.ctx)
        self._unop, self._binop, self._init = _operator_functions()
        self._ops: dict[int, int] = {}
        self._types: dict[int, object] = {}
        self._storage: dict[int, bool] = {}
        self._headers: dict[int, int | None] = {}
        self._params: dict[int, list | None] = {}
        self._positions: dict[int, dict[int, int]] = {}
        self._cond: dict[int, bool] = {}
        regions = sorted((d.stmt_span.start, d.stmt_span.end, k) for k, d in enumerate(directives)
                         if d.is_target_region and d.stmt_span is not None)
        self._regions = regions
        self._region_starts = [r[0] for r in regions]
        self._max_end = []
        top = -1
        for region in regions:
            top = max(top, region[1])
            self._max_end.append(top)

    # -- the walk ---------------------------------------------------------------------------

    def run(self) -> None:
        kinds, end, nodes = self.kinds, self.tree.end, self.nodes
        vectors = self.vectors
        i, count = 0, len(nodes)
        while i < count:
            kind = kinds[i]
            if kind in SKIP_SUBTREE:
                i = end[i]
                continue
            if kind in FUNCTION_KINDS and not _is_host_code(cuda_role(nodes[i].cursor)):
                i = end[i]  # a kernel or __device__ function: device code, not ours
                continue
            if kind == "ARRAY_SUBSCRIPT_EXPR" or kind == "MEMBER_REF_EXPR":
                self._access(i)
                if kind == "MEMBER_REF_EXPR" and vectors:
                    self._vector_use(i)
            elif kind == "DECL_REF_EXPR" and vectors:
                self._vector_use(i)
            elif kind == "UNARY_OPERATOR":
                op = self._op(i, self._unop)
                if op == DEREF:
                    self._access(i)
                elif op in INC_DEC:
                    self._self_offset(i)
            elif kind == "CALL_EXPR":
                if not (vectors and self._vector_call(i)):
                    self._call(i)
            elif kind == "BINARY_OPERATOR":
                if self._op(i, self._binop) == ASSIGN:
                    self._assignment(i)
            elif kind == "COMPOUND_ASSIGNMENT_OPERATOR":
                if self._op(i, self._binop) in (ADD_ASSIGN, SUB_ASSIGN):
                    self._self_offset(i)
            elif kind == "VAR_DECL":
                self._declaration(i)
            i += 1

    # -- node facts (memoised: each costs libclang calls) -----------------------------------

    def _op(self, i: int, func) -> int:
        got = self._ops.get(i)
        if got is None:
            got = self._ops[i] = func(self.nodes[i].cursor)
        return got

    def _type(self, i: int):
        """The canonical type of node ``i``."""
        got = self._types.get(i)
        if got is None:
            got = self._types[i] = self.nodes[i].cursor.type.get_canonical()
        return got

    def _type_kind(self, i: int) -> str:
        return self._type(i).kind.name

    def _is_pointer(self, i: int) -> bool:
        """Pointer- or array-typed, and not a pointer to a function."""
        canon = self._type(i)
        kind = canon.kind.name
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

    # -- names ------------------------------------------------------------------------------

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
            return tokens[0] if len(tokens) == 1 and tokens[0].isdigit() else None
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
                        expr = Expr("-" + _factor(expr.text), expr.span)
                    subs.append(expr)
                x = self._strip(pointer)
            elif kind == "MEMBER_REF_EXPR":
                name = self._name(x)
                if name is not None:
                    return name, x, subs
                if not children[x]:
                    return None
                x = self._strip(children[x][0])
            else:
                name = self._name(x)
                return None if name is None else (name, x, subs)

    # -- accesses ---------------------------------------------------------------------------

    def _access(self, i: int) -> None:
        """Node ``i`` is a subscript, a dereference or a member: report it if it is the
        outermost storage expression of its chain."""
        if not self._is_storage(i):
            return
        up, child = self._context(i)
        if up >= 0 and self._continues(up, child):
            return
        tkind = self._type_kind(i)
        if tkind in ARRAY_TYPE_KINDS or tkind in FUNCTION_TYPES:
            return  # an array row decays to a pointer: a call argument or a copy source
        mode = self._mode(i, up, child)
        if mode is None:
            return
        resolved = self._resolve(i)
        if resolved is None:
            return
        name, root, subs = resolved
        self._emit(i, name, mode, subs, root=root)

    def _mode(self, i: int, up: int, child: int) -> str | None:
        """read / write / readwrite from what the access is the operand of (None: its address
        is taken, which is no access by itself)."""
        if up < 0:
            return "read"
        kind = self.kinds[up]
        if kind == "BINARY_OPERATOR":
            first = self.children[up][:1] == [child]
            return "write" if first and self._op(up, self._binop) == ASSIGN else "read"
        if kind == "COMPOUND_ASSIGNMENT_OPERATOR":
            return "readwrite" if self.children[up][:1] == [child] else "read"
        if kind == "UNARY_OPERATOR":
            op = self._op(up, self._unop)
            if op in INC_DEC:
                return "readwrite"
            return None if op == ADDR_OF else "read"
        if child == i and kind in ("CALL_EXPR", "VAR_DECL"):
            # Bound to a reference (C++): a const one only reads.
            target = self._reference_target(up, child)
            if target is not None:
                return "read" if target.is_const_qualified() else "readwrite"
        return "read"

    def _reference_target(self, up: int, child: int):
        """The referenced type when ``child`` initialises a reference (variable or parameter)."""
        if self.kinds[up] == "VAR_DECL":
            canon = self._type(up)
        else:
            position = self._arg_positions(up).get(child)
            params = self._callee_params(up)
            if position is None or params is None or position >= len(params):
                return None
            canon = params[position]
        if canon.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE"):
            return canon.get_pointee()
        return None

    def _emit(self, i: int, name: str, mode: str, subs, call: str | None = None,
              arg_index: int | None = None, root: int | None = None) -> None:
        tree = self.tree
        start, end = tree.extent(i)
        directive, region = self._region(start, end)
        if region is not None and root is not None and self._region_array(root, region):
            return
        pointer = root is not None and self._type_kind(root) == "POINTER"
        region_local = region is not None and root is not None and \
            self._declared_in(root, region) is not None
        root = _IDENT.match(name)
        self.refs.append(ArrayRef(
            array=name, root=root.group(0) if root else name, mode=mode,
            subscripts=tuple(subs), span=tree.span(i), function=self.nodes[i].function,
            directive=directive, call=call, arg_index=arg_index,
            conditional=self._conditional(i, region), pointer=pointer,
            region_local=region_local))

    # -- target regions and conditions ------------------------------------------------------

    def _region(self, start: int, end: int):
        """(index, (start, end)) of the innermost target region containing the range."""
        k = bisect.bisect_right(self._region_starts, start) - 1
        while k >= 0 and self._max_end[k] >= end:
            r_start, r_end, index = self._regions[k]
            if r_start <= start and end <= r_end:
                return index, (r_start, r_end)
            k -= 1
        return None, None

    def _conditional(self, i: int, region) -> bool:
        """Is there a branch between node ``i`` and its region's statement or function?

        Memoised per node (relative to the node's own innermost region, which is the
        access's): a 500-term sum must not walk 500 ancestors for each of its terms.
        """
        parent, kinds, extent, memo = self.parent, self.kinds, self.tree.extent, self._cond
        path = []
        child, up = i, parent[i]
        while True:
            known = memo.get(child)
            if known is not None:
                result = known
                break
            if up < 0 or kinds[up] in FUNCTION_KINDS or kinds[up] == "LAMBDA_EXPR":
                result = False
                break
            if region is not None:
                start, end = extent(up)
                if start < region[0] or end > region[1]:
                    result = False
                    break
            if self._branches(up, child, kinds[up]):
                result = True
                break
            path.append(child)
            child, up = up, parent[up]
        memo[child] = result
        for node in path:
            memo[node] = result
        return result

    def _branches(self, up: int, child: int, kind: str) -> bool:
        """Does ``child`` of ``up`` run only on some executions of ``up``?"""
        kids = self.children[up]
        if kind in ("IF_STMT", "SWITCH_STMT"):
            close = self._header_close(up, b"if" if kind == "IF_STMT" else b"switch")
            if close is None:  # written by a macro: the condition comes first
                return kids[:1] != [child]
            return self.tree.extent(child)[0] > close
        if kind == "CONDITIONAL_OPERATOR":
            return kids[:1] != [child]
        if kind == "BINARY_OPERATOR":
            return kids[-1:] == [child] and len(kids) == 2 and self._op(up, self._binop) in LOGICAL
        return kind == "CXX_CATCH_STMT"

    def _header_close(self, i: int, keyword: bytes) -> int | None:
        if i not in self._headers:
            marks = _header(self.src, self.tree.extent(i)[0], keyword)
            self._headers[i] = None if marks is None else marks[0]
        return self._headers[i]

    # -- calls ------------------------------------------------------------------------------

    def _call_name(self, i: int) -> str:
        cursor = self.nodes[i].cursor
        name = cursor.spelling
        if not name:
            ref = cursor.referenced
            name = ref.spelling if ref is not None else ""
        name = pointer_callee(self.tree, i) or name
        if (not name or name == "operator()") and self.children[i]:
            name = _callee_name(self.tree.ctx.index.text(*self.tree.extent(self.children[i][0]))) or name
        for prefix in ("__builtin___", "__builtin_"):
            if name.startswith(prefix):
                name = name[len(prefix):].removesuffix("_chk")
        return name

    def _arg_positions(self, i: int) -> dict[int, int]:
        """child node -> argument position, matched on extents from the last argument back
        (children also hold the callee, a launch configuration, an operator's name)."""
        got = self._positions.get(i)
        if got is not None:
            return got
        cursor = self.nodes[i].cursor
        args = []
        for arg in cursor.get_arguments():
            extent = arg.extent
            args.append((extent.start.offset, extent.end.offset))
        out: dict[int, int] = {}
        kids = self.children[i]
        k = len(kids) - 1
        for position in range(len(args) - 1, -1, -1):
            j = k
            while j >= 0 and self.tree.extent(kids[j]) != args[position]:
                j -= 1
            if j < 0:
                continue  # a default argument: not written at the call
            out[kids[j]] = position
            k = j - 1
        self._positions[i] = out
        return out

    def _callee_params(self, i: int) -> list | None:
        """Canonical parameter types of the called function (None: not known)."""
        if i in self._params:
            return self._params[i]
        ref = self.nodes[i].cursor.referenced
        params = None
        if ref is not None and ref.kind.name in FUNCTION_KINDS:
            params = [arg.type.get_canonical() for arg in ref.get_arguments()]
        self._params[i] = params
        return params

    def _call(self, i: int) -> None:
        if self._pointer_swap(i):
            return
        kids = self.children[i]
        candidates = [k for k in kids if self._pointer_argument(k) is not None]
        if not candidates:
            return
        name = self._call_name(i)
        if name == LAUNCH_CONFIG or name in NOT_ACCESS:
            return
        positions = self._arg_positions(i)
        for k in candidates:
            position = positions.get(k)
            if position is None:
                continue
            resolved = self._pointer_argument(k)
            mode = self._argument_mode(i, name, position, k)
            if mode is None or self._is_system_name(resolved[1]) or self._is_handle(k):
                continue
            self._emit(k, resolved[0], mode, resolved[2], call=name, arg_index=position,
                       root=resolved[1])

    def _pointer_argument(self, k: int):
        """(name, root node, start subscripts) when call child ``k`` passes a pointer to named
        storage: ``u``, ``a + k``, ``&a[k]``, ``g[i]`` (a row), ``&s`` (a struct)."""
        x = self._strip(k)
        kind = self.kinds[x]
        if kind == "UNARY_OPERATOR" and self._op(x, self._unop) == ADDR_OF:
            operand = self._strip(self.children[x][0]) if self.children[x] else None
            if operand is None:
                return None
            if not self._is_storage(operand):
                tkind = self._type_kind(operand)
                if tkind not in ARRAY_TYPE_KINDS and tkind not in RECORD_TYPES:
                    return None  # &scalar, &pointer: not array storage
            return self._resolve(operand)
        vector = containers.data_pointer(self, x) if self.vectors else None
        if vector is not None:  # v.data()
            name = self._name(vector)
            return None if name is None else (name, vector, [])
        if not self._is_pointer(k) or kind in ("STRING_LITERAL", "CALL_EXPR"):
            return None
        if self._is_storage(x) and self._type_kind(x) not in ARRAY_TYPE_KINDS:
            return None  # a pointer loaded from storage: that load is the access
        return self._resolve(x)

    def _argument_mode(self, i: int, name: str, position: int, k: int) -> str | None:
        fixed = FIXED_MODES.get(name)
        if fixed is not None and (position in fixed[0] or fixed[1] is not None):
            return fixed[0].get(position, fixed[1])
        params = self._callee_params(i)
        if params is None:
            return "readwrite"
        if position >= len(params):  # a variadic argument
            if name in PRINTF_LIKE:
                canon = self._type(k)
                if canon.kind.name != "POINTER":
                    return None
                return "read" if canon.get_pointee().get_canonical().kind.name in CHAR_TYPES else None
            return "readwrite"
        canon = params[position]
        kind = canon.kind.name
        if kind in ("POINTER", "LVALUEREFERENCE", "RVALUEREFERENCE"):
            const = canon.get_pointee().is_const_qualified()
        elif kind in ARRAY_TYPE_KINDS:
            const = canon.is_const_qualified() or canon.element_type.is_const_qualified()
        else:
            const = False
        return "read" if const else "readwrite"

    def _is_handle(self, k: int) -> bool:
        """``FILE *``, ``cudaStream_t``: a pointer to a library's (often opaque) struct."""
        canon = self._type(k)
        if canon.kind.name != "POINTER":
            return False
        pointee = canon.get_pointee().get_canonical()
        if pointee.kind.name != "RECORD":
            return False
        declaration = pointee.get_declaration()
        return declaration.is_null() or declaration.location.is_in_system_header

    def _declared_in(self, root: int, region: tuple[int, int]):
        """The variable at ``root`` when it is declared inside ``region`` (else None)."""
        if self.kinds[root] != "DECL_REF_EXPR":
            return None
        declaration = self.nodes[root].cursor.referenced
        if declaration is None or declaration.kind.name != "VAR_DECL":
            return None
        location = declaration.location
        inside = location.file is not None and location.file.name == self.tree.ctx.path and \
            region[0] <= location.offset < region[1]
        return declaration if inside else None

    def _region_array(self, root: int, region: tuple[int, int]) -> bool:
        """The storage is an array declared inside the target region itself: private to
        each device thread, never mapped, never named by a clause. (A pointer declared
        there may alias mapped storage: its accesses stay, marked ``region_local``.)"""
        declaration = self._declared_in(root, region)
        return declaration is not None and \
            declaration.type.get_canonical().kind.name in ARRAY_TYPE_KINDS

    def _is_system_name(self, root: int) -> bool:
        """``stderr`` and friends: variables declared in system headers are not program data."""
        if self.kinds[root] != "DECL_REF_EXPR":
            return False
        ref = self.nodes[root].cursor.referenced
        return ref is not None and ref.location.is_in_system_header

    # -- pointer copies ---------------------------------------------------------------------

    def _source(self, i: int) -> tuple[str | None, bool]:
        """(copied name, offset) of a pointer-valued right-hand side."""
        x = self._strip(i)
        kind = self.kinds[x]
        vector = containers.data_pointer(self, x) if self.vectors else None
        if vector is not None:
            return self._name(vector), False  # v.data()
        if kind == "BINARY_OPERATOR" and self._op(x, self._binop) == ASSIGN and self.children[x]:
            return self._name(self._strip(self.children[x][0])), False  # p = q = r
        name = self._name(x)
        if name is not None:
            return name, False
        if kind == "UNARY_OPERATOR" and self._op(x, self._unop) == ADDR_OF and self.children[x]:
            x = self._strip(self.children[x][0])
            if not self._is_storage(x):
                name = self._name(x)
                return (None if name is None else "&" + name), False
        elif self._is_storage(x) and self._type_kind(x) not in ARRAY_TYPE_KINDS:
            return None, False  # a pointer loaded from storage: unknown target
        elif kind not in ("BINARY_OPERATOR", "ARRAY_SUBSCRIPT_EXPR", "UNARY_OPERATOR"):
            return None, False
        resolved = self._resolve(x)
        if resolved is None:
            return None, False
        return resolved[0], any(sub.text.strip() != "0" for sub in resolved[2]) or not resolved[2]

    def _copy(self, i: int, target: str, source: str | None, offset: bool) -> None:
        node = self.nodes[i]
        self.copies.append(PointerCopy(target, source, self.tree.span(i), node.function, offset))

    def _pointer_swap(self, i: int) -> bool:
        """``std::swap(p, q)`` of two pointers exchanges the pointers, not the data: three
        copies through a temporary (as ``t = p; p = q; q = t``), no access to either array
        (a time loop that swaps its buffers would otherwise copy them every step)."""
        name = self._call_name(i)
        if name.rpartition("::")[2] != "swap":
            return False
        args = [k for k, _ in sorted(self._arg_positions(i).items(), key=lambda kv: kv[1])]
        if len(args) != 2 or not all(self._is_pointer_value(k) for k in args):
            return False
        names = [self._name(self._strip(k)) for k in args]
        if None in names:
            return False
        first, second = names
        temp = f"s2s_swap@{self.tree.extent(i)[0]}"
        self._copy(i, temp, first, False)
        self._copy(i, first, second, False)
        self._copy(i, second, temp, False)
        return True

    def _assignment(self, i: int) -> None:
        kids = self.children[i]
        if len(kids) != 2 or not self._is_pointer_value(kids[0]):
            return
        target = self._name(self._strip(kids[0]))
        if target is not None:
            self._copy(i, target, *self._source(kids[1]))

    def _self_offset(self, i: int) -> None:
        """``p += k``, ``p++``: ``p`` now points elsewhere in the same storage."""
        kids = self.children[i]
        if kids and self._is_pointer_value(kids[0]):
            name = self._name(self._strip(kids[0]))
            if name is not None:
                self._copy(i, name, name, True)

    def _is_pointer_value(self, i: int) -> bool:
        return self._type_kind(i) == "POINTER" and self._is_pointer(i)

    def _declaration(self, i: int) -> None:
        if self.vectors and self.children[i] and self._vector_reference(i):
            return
        if not self.children[i] or not self._is_pointer_value(i):
            return
        k = self._initializer(i)
        if k is not None:
            self._copy(i, self.nodes[i].cursor.spelling, *self._source(k))

    def _initializer(self, i: int) -> int | None:
        """The child node of the variable declared at ``i`` that is its initializer."""
        init = self._init(self.nodes[i].cursor)
        if init is None or init.is_null():
            return None
        extent = init.extent
        wanted = (extent.start.offset, extent.end.offset)
        return next((k for k in reversed(self.children[i]) if self.tree.extent(k) == wanted),
                    None)

    # -- std::vector (frontend.containers) ----------------------------------------------------

    def _vector_call(self, i: int) -> bool:
        """``v[k]``, ``v.resize(n)``, ``v = w``: handled here (True), not as a plain call."""
        if containers.subscript(self, i) is not None:
            if self._region(*self.tree.extent(i))[0] is None:  # host code only
                self._access(i)
            return True
        member = containers.member_call(self, i) or containers.operator_call(self, i)
        if member is None:
            return False
        if member[0] in containers.REALLOCATING_MEMBERS:
            name = self._name(member[1])
            if name is not None:  # new storage: pointers taken earlier no longer follow it
                self._copy(i, name, None, False)
            return True
        return member[0] == "data" or member[0] in containers.NO_ACCESS_MEMBERS

    def _vector_use(self, i: int) -> None:
        """Any other use of a vector is a whole-vector access of unknown range."""
        if not containers.is_vector_type(self._type(i)) or containers.use_is_known(self, i):
            return
        name = self._name(i)
        if name is None or self._region(*self.tree.extent(i))[0] is not None:
            return
        up, child = self._context(i)
        target = self._reference_target(up, child) if up >= 0 and \
            self.kinds[up] == "CALL_EXPR" else None
        if target is not None and containers.is_vector_type(target.get_canonical()):
            # ``f(v)`` binding ``std::vector<T> &``: the callee's accesses (by value it is a
            # copy: a plain access here)
            mode = "read" if target.is_const_qualified() else "readwrite"
            self._emit(i, name, mode, [], call=self._call_name(up),
                       arg_index=self._arg_positions(up)[child], root=i)
            return
        mode = "read" if containers.is_const_use(self, i) else "readwrite"
        self._emit(i, name, mode, [], root=i)

    def _vector_reference(self, i: int) -> bool:
        """``std::vector<T> &r = v;``: ``r`` names ``v``'s storage (a pointer copy); bound to
        anything else (``d.energy()``), storage this analysis does not follow."""
        canon = self._type(i)
        if canon.kind.name not in ("LVALUEREFERENCE", "RVALUEREFERENCE") or \
                not containers.is_vector_type(canon.get_pointee().get_canonical()):
            return False
        k = self._initializer(i)
        if k is not None:
            self._copy(i, self.nodes[i].cursor.spelling, self._name(self._strip(k)), False)
        return True
