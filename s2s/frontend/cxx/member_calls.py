"""Member function calls that read or write a class's vector storage from the host.

A caller that took ``double *l = d.lists();`` (omp.accessor_counts: the storage of the
private vector ``list_``) may reach the same elements through other member functions of
``d``: an element accessor ``double &list(int r) { return list_[r]; }`` (``d.list(k) = -1.0``
writes element ``k``; ``s += d.list(k)`` reads it), or any method whose body touches
``list_`` (``d.sum()``). Unseen, such a call left the device copy stale after the host wrote
an element, or the host copy stale when the host read one (a data region over the kernels
that copied nothing back while the output read ``d.result(r)``). One ``member_call`` fact per
call of a member function on a variable of a class with vector members, in host functions:
``names`` = (function, object, method, kind, index, mode, members...) where

* ``kind`` is ``element`` for a body ``return m[p];`` with ``m`` a vector member and ``p`` a
  parameter: ``index`` is the call's argument for ``p`` as written, ``mode`` what the call's
  context does with the element (``write`` for the left side of ``=``, ``readwrite`` for a
  compound assignment, ``++``/``--``, or a non-const reference handed on; else ``read``),
  ``members`` = (``m``,);
* ``call`` for any other method whose definition this file shows: ``members`` are the
  members its body names, ``mode`` is ``read`` for a const method, else ``readwrite``;
* ``unknown`` where the definition is not in this file (``method`` is its ``displayname``,
  which another file's ``member_mentions`` fact may name; ``mode`` from its constness).
"""

from __future__ import annotations

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.cxx.accessors import member_mentions, method_call_on_variable, strip_through
from s2s.frontend.host.containers import is_vector_type
from s2s.frontend.host.facts import ASSIGNMENTS, THROUGH, UNARY_ROLES, unary_kind
from s2s.model.host import ClassFact


def member_call_facts(ctx: ExtractContext) -> list[ClassFact]:
    """The ``member_call`` facts of the main file's host functions (module doc)."""
    out: list[ClassFact] = []
    parents: dict = {}
    for node in ctx.nodes():
        cursor = node.cursor
        for child in cursor.get_children():
            parents[child.hash] = cursor
        if node.kind != "CALL_EXPR" or not node.function:
            continue
        found = _member_call(cursor)
        if found is None:
            continue
        method, owner, obj = found
        kind, index, mode, members = _what_it_touches(cursor, method, owner, parents)
        out.append(ClassFact(owner.spelling, "member_call", ctx.span(cursor),
                             (node.function, obj, method.displayname, kind, index, mode,
                              *members)))
    return out


def _member_call(call):
    """(method, class, object name) for ``obj.method(...)`` / ``obj->method(...)`` on a
    variable of a class with vector members; None otherwise."""
    found = method_call_on_variable(call)
    if found is None:
        return None
    method, target = found
    owner = method.semantic_parent
    if owner is None or not any(k.kind.name == "FIELD_DECL" and
                                is_vector_type(k.type.get_canonical())
                                for k in owner.get_children()):
        return None
    return method, owner, target.spelling


def _what_it_touches(call, method, owner, parents) -> tuple[str, str, str, tuple[str, ...]]:
    """(kind, index, mode, members) of the module doc for one call."""
    definition = method.get_definition()
    if definition is None:
        return "unknown", "", "read" if method.is_const_method() else "readwrite", ()
    element = _element_of(definition, owner)
    if element is not None:
        field, position = element
        args = list(call.get_arguments())
        if position < len(args):
            index = " ".join(t.spelling for t in args[position].get_tokens())
            return "element", index, _element_mode(call, method, parents), (field,)
    mode = "read" if method.is_const_method() else "readwrite"
    return "call", "", mode, tuple(member_mentions(definition, owner))


def _element_of(definition, owner) -> tuple[str, int] | None:
    """(vector member, parameter position) for a body ``return m[p];``."""
    body = [k for k in definition.get_children() if k.kind.name == "COMPOUND_STMT"]
    statements = list(body[0].get_children()) if len(body) == 1 else []
    if len(statements) != 1 or statements[0].kind.name != "RETURN_STMT":
        return None
    value = [strip_through(k) for k in statements[0].get_children()]
    if len(value) != 1 or value[0].kind.name != "CALL_EXPR" or \
            value[0].spelling != "operator[]":
        return None
    parts = [strip_through(k) for k in value[0].get_children()]
    # operator[]'s children: the object, the callee (operator[] itself), the index
    members = [p for p in parts if p.kind.name == "MEMBER_REF_EXPR"]
    indices = [p for p in parts if p.kind.name == "DECL_REF_EXPR" and p.referenced is not None
               and p.referenced.kind.name == "PARM_DECL"]
    if len(members) != 1 or len(indices) != 1:
        return None
    field = members[0].referenced
    base = [strip_through(k) for k in members[0].get_children()]
    if field is None or field.kind.name != "FIELD_DECL" or field.semantic_parent != owner or \
            not is_vector_type(field.type.get_canonical()) or \
            (base and base[0].kind.name != "CXX_THIS_EXPR"):
        return None
    params = list(definition.get_arguments())
    position = next((k for k, p in enumerate(params) if p == indices[0].referenced), None)
    return (field.spelling, position) if position is not None else None


def _element_mode(call, method, parents) -> str:
    """What the call's context does with the element it returns (module doc)."""
    j, p = call, parents.get(call.hash)
    while p is not None and p.kind.name in THROUGH:
        j, p = p, parents.get(p.hash)
    if p is not None and p.kind.name == "BINARY_OPERATOR" and \
            next(iter(p.get_children()), None) == j:
        return "write" if p.binary_operator.name == "Assign" else \
            "readwrite" if p.binary_operator.name in ASSIGNMENTS else "read"
    if p is not None and p.kind.name == "COMPOUND_ASSIGNMENT_OPERATOR" and \
            next(iter(p.get_children()), None) == j:
        return "readwrite"
    if p is not None and p.kind.name == "UNARY_OPERATOR" and \
            UNARY_ROLES.get(unary_kind(p)) in ("assign", "address"):
        return "readwrite"
    result = method.result_type.get_canonical()
    handle = result.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE") and \
        not result.get_pointee().is_const_qualified()
    plain = p is None or p.kind.name in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR",
                                         "RETURN_STMT", "CONDITIONAL_OPERATOR",
                                         "ARRAY_SUBSCRIPT_EXPR", "UNARY_OPERATOR")
    return "readwrite" if handle and not plain else "read"
