"""``std::vector`` storage seen by the data-mapping analysis (issue 17, item 2).

C++ programs keep their arrays in ``std::vector<T> v(n)`` and hand kernels ``v.data()`` or
``&v[0]``; the host fills and reads them through ``v[i]``. To the analysis the vector *is* the
array: its label is the vector's name, its element count ``v.size()`` (valid wherever the
vector is, whatever built it), and these uses are accesses or pointer values of it:

* ``v[i]`` (``operator[]``) is an access of ``v`` at ``(i,)``, read or written like ``a[i]``;
* ``v.data()`` and ``&v[k]`` are pointers to ``v``'s storage (at offset ``k``);
* ``v.size()``, ``v.empty()``, ``v.capacity()`` touch no element;
* a call that may reallocate (``push_back``, ``resize``, ``assign``, ``v = w`` ...) makes ``v``
  name new storage: a pointer copy from unknown storage, after which the analysis no longer
  follows pointers taken earlier;
* any other use (a range-``for``, ``v.begin()``, an algorithm, passing ``v`` by reference) is
  a whole-vector access whose element range is unknown: ``read`` where the vector is const
  there, else ``readwrite`` (conservative: the copies it causes are never wrong).

The OpenMP transform names a vector in clauses through a local ``s2s_v = v.data()`` (a
vector is no addressable lvalue for ``map``). Facts come from the cursors' types and
callees, not from the text.
"""

from __future__ import annotations

import re

from s2s.frontend.core.fast_cursor import canonical_type, type_kind

#: ``std::vector<T>`` (libstdc++) and ``std::__1::vector<T>`` (libc++).
_VECTOR = re.compile(r"^(?:const\s+)?(?:volatile\s+)?std::(?:__\w+::)?vector<")
#: Members that neither access elements nor change the storage.
NO_ACCESS_MEMBERS = frozenset({"size", "empty", "capacity", "max_size", "get_allocator"})
#: Members that may give the vector new storage.
REALLOCATING_MEMBERS = frozenset({"push_back", "emplace_back", "resize", "reserve", "assign",
                                  "insert", "emplace", "erase", "clear", "swap",
                                  "shrink_to_fit", "pop_back", "operator="})


def unit_has_vectors(ctx) -> bool:
    """Whether the translation unit can hold a ``std::vector`` at all: it includes the
    standard header that defines it (libstdc++'s ``bits/stl_vector.h``, libc++'s
    ``vector``). A file that includes neither (every C program) skips the checks of this
    module, which cost a libclang type lookup per name."""
    return any(inclusion.include.name.endswith(("/bits/stl_vector.h", "/vector"))
               for inclusion in ctx.unit.get_includes())


def is_vector_type(canon) -> bool:
    """Whether the canonical type ``canon`` is a ``std::vector`` (not a reference to one);
    in a template, ``std::vector<T>`` too (an unexposed, dependent type)."""
    return type_kind(canon) in ("RECORD", "UNEXPOSED") and _VECTOR.match(canon.spelling) is not None


def vector_reference(canon) -> bool:
    """Whether the canonical type is a reference to a ``std::vector``."""
    return type_kind(canon) in ("LVALUEREFERENCE", "RVALUEREFERENCE") and \
        is_vector_type(canon.get_pointee().get_canonical())


def element_type(canon) -> str:
    """``double`` for ``std::vector<double>``."""
    if canon.get_num_template_arguments() > 0:
        return canon.get_template_argument_type(0).spelling
    return "void"


def member_call(scanner, i: int) -> tuple[str, int] | None:
    """(member name, object node) when node ``i`` is ``obj.member(...)`` on a vector."""
    if scanner.kinds[i] != "CALL_EXPR" or not scanner.children[i]:
        return None
    callee = scanner._strip(scanner.children[i][0])
    if scanner.kinds[callee] != "MEMBER_REF_EXPR" or not scanner.children[callee]:
        return None
    obj = scanner._strip(scanner.children[callee][0])
    if not is_vector_type(scanner._type(obj)):
        return None
    return member_name(scanner.nodes[callee].cursor), obj


def member_name(cursor) -> str:
    """The member a ``MEMBER_REF_EXPR`` names; in a template, where a member of a dependent
    type is not resolved (empty spelling), its last token (``data`` of ``u_.data``)."""
    if cursor.spelling:
        return cursor.spelling
    tokens = list(cursor.get_tokens())
    return tokens[-1].spelling if tokens else ""


def subscript(scanner, i: int) -> tuple[int, int] | None:
    """(object node, index node) when node ``i`` is ``v[k]`` through ``operator[]``."""
    if scanner.kinds[i] != "CALL_EXPR" or scanner.nodes[i].cursor.spelling != "operator[]":
        return None
    kids = scanner.children[i]
    if len(kids) != 3:
        return None
    obj = scanner._strip(kids[0])
    if not is_vector_type(scanner._type(obj)):
        return None
    return obj, kids[2]


def operator_call(scanner, i: int) -> tuple[str, int] | None:
    """(operator name, object node) for ``v = w`` and the like written as operators."""
    if scanner.kinds[i] != "CALL_EXPR":
        return None
    name = scanner.nodes[i].cursor.spelling
    if not name.startswith("operator") or name == "operator[]" or not scanner.children[i]:
        return None
    obj = scanner._strip(scanner.children[i][0])
    if not is_vector_type(scanner._type(obj)):
        return None
    return name, obj


def data_pointer(scanner, i: int) -> int | None:
    """The vector node when node ``i`` is ``v.data()``."""
    found = member_call(scanner, i)
    return found[1] if found is not None and found[0] == "data" else None


def use_is_known(scanner, i: int) -> bool:
    """Whether the vector-typed node ``i`` is the object of a use this module models
    (``v[k]``, ``v.data()``, ``v.size()``, a reallocating member or operator): anything else
    is an opaque whole-vector access."""
    up = scanner.parent[i]
    while up >= 0 and scanner.kinds[up] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and \
            scanner.children[up] and scanner._strip(up) == i:
        i, up = up, scanner.parent[up]
    if up < 0:
        return False
    kind = scanner.kinds[up]
    if kind == "MEMBER_REF_EXPR":
        member = member_name(scanner.nodes[up].cursor)
        call = scanner.parent[up]
        return call >= 0 and scanner.kinds[call] == "CALL_EXPR" and (
            member == "data" or member in NO_ACCESS_MEMBERS or member in REALLOCATING_MEMBERS)
    if kind == "CALL_EXPR" and scanner.children[up][:1] == [i]:
        name = scanner.nodes[up].cursor.spelling
        return name == "operator[]" or name in REALLOCATING_MEMBERS
    return False


def is_const_use(scanner, i: int) -> bool:
    """The vector is const where node ``i`` names it (a const reference, a const object)."""
    return scanner.nodes[i].cursor.type.is_const_qualified()


def vector_allocation(tree, i: int):
    """A ``HostAllocation`` of kind ``vector`` for the variable declared at node ``i`` when it
    is a ``std::vector`` (not a reference to one): its element count is ``v.size()``."""
    from s2s.model import Expr, HostAllocation

    cursor = tree.nodes[i].cursor
    canon = canonical_type(cursor)
    if not is_vector_type(canon):
        return None
    span = tree.span(i)
    name = cursor.spelling
    function = tree.nodes[i].function
    if cursor.kind.name == "FIELD_DECL":
        owner = cursor.semantic_parent
        if owner is None or not owner.spelling:
            return None
        function = member_scope(owner.spelling)
    # in a template the canonical type spells ``T`` as ``type-parameter-0-0``: the written one
    element = element_type(cursor.type if canon.kind.name == "UNEXPOSED" else canon)
    return HostAllocation(name, "vector", element, span, function,
                          Expr(f"{name}.size()", span))


def member_scope(class_name: str) -> str:
    """The ``HostAllocation.function`` of a data member of ``class_name`` (``Domain::``):
    storage of every object of the class, named bare only in its member functions."""
    return f"{class_name}::"
