"""Pointer copies of host code (``PointerCopy``) and the uses of ``std::vector`` storage.

Which name a pointer-valued assignment, declaration, ``p += k``, ``p++`` or ``std::swap``
copies into which (the analysis follows storage through them), and how a vector's uses map
onto accesses and copies (:mod:`s2s.frontend.host.containers` says what each use is). Kept apart
from the access scanner's walk (:mod:`s2s.frontend.access.refs`) because these rules produce
the copies, not the accesses; :class:`PointerCopies` is a mixin of that scanner.
"""

from __future__ import annotations

from s2s.frontend.access.calls import CallArguments
from s2s.frontend.access.chains import ADDR_OF, ASSIGN, DEREF
from s2s.frontend.host import containers
from s2s.frontend.host.struct_writes import pointer_members, record_writes
from s2s.frontend.host.tree import ARRAY_TYPE_KINDS
from s2s.model.access import PointerCopy


class PointerCopies(CallArguments):
    """Pointer copies and vector uses (a mixin of the access scanner)."""

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

    def _choices(self, i: int) -> tuple[str, ...]:
        """``c ? p : q`` -> (p, q) when both branches are pointers to named storage without
        offset (the copy may be either), else ()."""
        x = self._strip(i)
        if self.kinds[x] != "CONDITIONAL_OPERATOR" or len(self.children[x]) != 3:
            return ()
        names = [self._source(b) for b in self.children[x][1:]]
        if any(name is None or offset or name.startswith("&") for name, offset in names):
            return ()
        return tuple(dict.fromkeys(name for name, _ in names))

    def _copy(self, i: int, target: str, source: str | None, offset: bool,
              choices: tuple[str, ...] = (), through: str | None = None) -> None:
        node = self.nodes[i]
        self.copies.append(PointerCopy(target, source, self.tree.span(i), node.function, offset,
                                       choices if source is None else (), through))

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
            self._copy(i, target, *self._source(kids[1]), self._choices(kids[1]))

    def _struct_copies(self, i: int) -> None:
        """A struct written as a whole (``g = make(n)``, ``g = fine``, ``*pm = tmp``,
        ``memcpy(&g, ...)``, ``&g`` given to a function only declared here:
        frontend.host.struct_writes) gives each of its pointer members a
        new value: one copy per member (``g.val = fine.val``; from unknown storage when the
        value is no named struct). A pointer copied out of the member before (``v = g.val``)
        then no longer holds the member's storage, and the member's own count, where the
        analysis still knows one (the struct made by the function that allocates it),
        describes the new storage only."""
        for node, record, _, value, through in record_writes(self.tree, i):
            target = self._struct_path(node)
            if target is None:
                continue
            source = self._struct_path(value) if value is not None else None
            for path in pointer_members(record.get_canonical()):
                self._copy(i, target[0] + target[1] + path[1:],
                           None if source is None else source[0] + source[1] + path[1:], False,
                           through=through)

    def _struct_path(self, i: int) -> tuple[str, str] | None:
        """(the name, ``.`` or ``->``) its members are named with for a struct expression
        (``g``, ``p->d``), its address (``&g``), a pointer to it (``pm``) or its
        dereference (``*pm``); None for any other (``a[k]``, ``get()``, ``*this``)."""
        x = self._strip(i)
        if self.kinds[x] == "UNARY_OPERATOR" and self.children[x]:
            op = self._op(x, self._unop)
            if op not in (ADDR_OF, DEREF):
                return None
            name = self._name(self._strip(self.children[x][0]))
            sep = "." if op == ADDR_OF else "->"
        else:
            name = self._name(x)
            sep = "->" if self._type_kind(x) == "POINTER" else "."
        return None if name is None or name == "this" else (name, sep)

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
            self._copy(i, self.nodes[i].cursor.spelling, *self._source(k), self._choices(k))

    def _initializer(self, i: int) -> int | None:
        """The child node of the variable declared at ``i`` that is its initializer."""
        init = self._init(self.nodes[i].cursor)
        if init is None or init.is_null():
            return None
        extent = init.extent
        wanted = (extent.start.offset, extent.end.offset)
        return next((k for k in reversed(self.children[i]) if self.tree.extent(k) == wanted),
                    None)

    # -- std::vector (frontend.host.containers) ----------------------------------------------------

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
