"""Pointer arguments of calls in host code: which argument passes which storage, and how
the callee may use it (read, write, both, or not at all).

A call is an access of every array it is handed a pointer to, with the callee's parameter
type deciding the mode (a pointer to const reads), library functions with known behaviour
taking fixed modes, deallocation and printed addresses being no access. Kept apart from the
scanner's walk (:mod:`s2s.frontend.access.refs`) because the argument matching (children to
positions, by extent) and the mode table are a rule set of their own. :class:`CallArguments`
is a mixin of the access scanner and relies on :class:`~s2s.frontend.access.chains.StorageChains`.
"""

from __future__ import annotations

from s2s.frontend.access.chains import ADDR_OF, StorageChains
from s2s.frontend.core.context import FUNCTION_KINDS
from s2s.frontend.host import containers
from s2s.frontend.host.callees import pointer_callee
from s2s.frontend.host.calls import callee_name
from s2s.frontend.host.tree import ARRAY_TYPE_KINDS, LAUNCH_CONFIG

CHAR_TYPES = frozenset({"CHAR_S", "CHAR_U", "SCHAR", "UCHAR", "WCHAR", "CHAR16", "CHAR32"})
RECORD_TYPES = frozenset({"RECORD", "ELABORATED"})
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


class CallArguments(StorageChains):
    """Calls and their pointer arguments (a mixin of the access scanner)."""

    def _call(self, i: int) -> None:
        if self._pointer_swap(i):
            return
        kids = self.children[i]
        candidates = [(k, k) for k in kids if self._pointer_argument(k) is not None] + \
            self._chosen_arguments(i)
        if not candidates:
            return
        name = self._call_name(i)
        if name == LAUNCH_CONFIG or name in NOT_ACCESS:
            return
        positions = self._arg_positions(i)
        for k, passed in candidates:
            position = positions.get(k)
            if position is None:
                continue
            resolved = self._pointer_argument(passed)
            mode = self._argument_mode(i, name, position, k)
            if mode is None or self._is_system_name(resolved[1]) or self._is_handle(passed):
                continue
            self._emit(passed, resolved[0], mode, resolved[2], call=name, arg_index=position,
                       root=resolved[1])

    def _chosen_arguments(self, i: int) -> list[tuple[int, int]]:
        """(argument, branch) for each branch of a pointer argument ``c ? p : q`` that passes
        named storage: the call may be handed either (each is an access, under a condition;
        omp.calls binds the parameter to both). Not for kernel launches."""
        kids = self.children[i]
        if any(self.kinds[k] == "CALL_EXPR" and self.nodes[k].cursor.spelling == LAUNCH_CONFIG
               for k in kids):
            return []
        out = []
        for k in kids[1:]:
            x = self._strip(k)
            if self.kinds[x] != "CONDITIONAL_OPERATOR" or len(self.children[x]) != 3 or \
                    not self._is_pointer(k):
                continue
            branches = self.children[x][1:]
            if all(self._pointer_argument(b) is not None for b in branches):
                out += [(k, b) for b in branches]
        return out

    def _call_name(self, i: int) -> str:
        cursor = self.nodes[i].cursor
        name = cursor.spelling
        if not name:
            ref = cursor.referenced
            name = ref.spelling if ref is not None else ""
        name = pointer_callee(self.tree, i) or name
        if (not name or name == "operator()") and self.children[i]:
            name = callee_name(self.tree.ctx.index.text(*self.tree.extent(self.children[i][0]))) or name
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

    def _is_system_name(self, root: int) -> bool:
        """``stderr`` and friends: variables declared in system headers are not program data."""
        if self.kinds[root] != "DECL_REF_EXPR":
            return False
        ref = self.nodes[root].cursor.referenced
        return ref is not None and ref.location.is_in_system_header
