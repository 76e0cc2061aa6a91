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
  ``std::vector``'s is (frontend.host.containers: ``v[i]``, ``v.data()``, ``&v[k]``, other uses).
* ``this->x`` and ``x`` in a member function are the same name, ``x``.
* ``PointerCopy.source`` is a name (``a`` for ``a``, ``a + k``, ``&a[k]``, ``g[i]`` of an
  array, the last with ``offset``), ``&s`` for the address of a struct variable, else None.
  ``p += k``, ``p++`` are copies of ``p`` to itself with ``offset``. Targets are pointer-typed
  names (variables, members); ``pp[i] = q`` is not a copy (it is a write of ``pp``).

The scanner is one class assembled from mixins along the seams of these rules: what a
storage expression denotes (``access.chains``), call arguments (``access.calls``), pointer
copies and vector uses (``access.copies``); this module holds the walk, the accesses
themselves and where they run (target region, under a branch).
"""

from __future__ import annotations

import bisect
import re

from s2s.frontend.access.chains import (
    ADD_ASSIGN,
    ADDR_OF,
    ASSIGN,
    DEREF,
    FUNCTION_TYPES,
    INC_DEC,
    LOGICAL,
    SUB_ASSIGN,
    operator_functions,
)
from s2s.frontend.access.copies import PointerCopies
from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.host import containers
from s2s.frontend.host.scan import statement_header
from s2s.frontend.host.tree import ARRAY_TYPE_KINDS, HostTree, cuda_role, host_tree, is_host_code
from s2s.model.access import ArrayRef, PointerCopy

#: Subtrees that are never evaluated (``sizeof``, ``alignof``) or never hold accesses.
SKIP_SUBTREE = frozenset({"CXX_UNARY_EXPR", "STATIC_ASSERT", "TYPE_ALIAS_DECL", "TYPEDEF_DECL"})
_IDENT = re.compile(r"[A-Za-z_]\w*")


def extract_accesses(ctx: ExtractContext, directives=(), structs: bool = True
                     ) -> tuple[tuple[ArrayRef, ...], tuple[PointerCopy, ...]]:
    """Every array access and pointer copy of the main file's host code, in source order.

    ``directives`` is the file's OmpDirective tuple (``ArrayRef.directive`` indexes it).
    Code in ``__global__`` and ``__device__``-only functions is skipped (CUDA host code only).
    ``structs``: whole-struct writes give their pointer members new values (copies; as the
    member writes they go with, extracted for C and C++ files).
    """
    scanner = _Scanner(host_tree(ctx), directives, structs)
    scanner.run()
    return (tuple(sorted(scanner.refs, key=_source_order)),
            tuple(sorted(scanner.copies, key=_source_order)))


def _source_order(item) -> tuple[int, int]:
    # Stable: accesses sharing an (empty, macro-argument) extent keep their walk order.
    return item.span.start, item.span.end


class _Scanner(PointerCopies):
    """The walk: classifies storage expressions, calls and pointer assignments."""

    def __init__(self, tree: HostTree, directives, structs: bool = True):
        self.tree = tree
        self.structs = structs
        self.nodes = tree.nodes
        self.kinds = tree.kinds
        self.parent = tree.parent
        self.children = tree.children
        self.src = tree.ctx.source
        self.refs: list[ArrayRef] = []
        self.copies: list[PointerCopy] = []
        #: the unit can hold std::vector (frontend.host.containers); else its checks are skipped
        self.vectors = containers.unit_has_vectors(tree.ctx)
        self._unop, self._binop, self._init = operator_functions()
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
        vectors, structs = self.vectors, self.structs
        i, count = 0, len(nodes)
        while i < count:
            kind = kinds[i]
            if kind in SKIP_SUBTREE:
                i = end[i]
                continue
            if kind in FUNCTION_KINDS and not is_host_code(cuda_role(nodes[i].cursor)):
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
                if structs:
                    self._struct_copies(i)
            elif kind == "BINARY_OPERATOR":
                if self._op(i, self._binop) == ASSIGN:
                    self._assignment(i)
                    if structs:
                        self._struct_copies(i)
            elif kind == "COMPOUND_ASSIGNMENT_OPERATOR":
                if self._op(i, self._binop) in (ADD_ASSIGN, SUB_ASSIGN):
                    self._self_offset(i)
            elif kind == "VAR_DECL":
                self._declaration(i)
            i += 1

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
        if kind == "CALL_EXPR" and (assigned := self._operator_assignment(up, child)):
            return assigned
        if child == i and kind in ("CALL_EXPR", "VAR_DECL"):
            # Bound to a reference (C++): a const one only reads.
            target = self._reference_target(up, child)
            if target is not None:
                return "read" if target.is_const_qualified() else "readwrite"
        return "read"

    def _operator_assignment(self, up: int, child: int) -> str | None:
        """``write`` (``readwrite``) when the call ``up`` is a class's ``operator=`` (a
        compound ``operator+=`` ...) and ``child`` its left operand: in C++ ``d_c[i].e[k] =
        cc;`` of a struct element is such a call (the implicit copy assignment), not a
        binary operator. None otherwise."""
        cursor = self.nodes[up].cursor
        name = cursor.spelling or ""
        if not name.startswith("operator") or not name.endswith("=") or \
                name in ("operator==", "operator!=", "operator<=", "operator>="):
            return None
        if self.nodes[child].cursor.extent.start.offset != cursor.extent.start.offset or \
                self.kinds[child] == "DECL_REF_EXPR" and \
                self.nodes[child].cursor.spelling == name:
            return None
        return "write" if name == "operator=" else "readwrite"

    def _emit(self, i: int, name: str, mode: str, subs, call: str | None = None,
              arg_index: int | None = None, root: int | None = None) -> None:
        tree = self.tree
        start, end = tree.extent(i)
        directive, region = self._region(start, end)
        if region is not None and root is not None and self._region_array(root, region):
            return
        kind = self._type_kind(root) if root is not None else None
        pointer = kind == "POINTER"
        rows = pointer and self._type(root).get_pointee().get_canonical().kind.name in \
            ARRAY_TYPE_KINDS
        dependent = kind == "UNEXPOSED" and bool(subs) and self.nodes[i].template is not None
        region_local = region is not None and root is not None and \
            self._declared_in(root, region) is not None
        root = _IDENT.match(name)
        self.refs.append(ArrayRef(
            array=name, root=root.group(0) if root else name, mode=mode,
            subscripts=tuple(subs), span=tree.span(i), function=self.nodes[i].function,
            directive=directive, call=call, arg_index=arg_index,
            conditional=self._conditional(i, region), pointer=pointer,
            region_local=region_local, dependent=dependent, rows=rows))

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
            marks = statement_header(self.src, self.tree.extent(i)[0], keyword)
            self._headers[i] = None if marks is None else marks[0]
        return self._headers[i]

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
