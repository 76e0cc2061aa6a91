"""Facts about the raw pointer members of C++ classes (``double *u_``), for omp.lifetime.

A class that allocates ``u_ = new double[n]`` in its constructor and frees it in its
destructor can keep ``u_[0:n_]`` mapped over each object's lifetime, like its vectors, when
the pointer is set once (by the constructor), never handed out, and its element count is
held by a field that no code writes after the constructor's member initializers. Those are
read here from the cursors of classes with at least one pointer member:

* ``field``: each data member (name, ``pointer``/``scalar``/``other``, ``public``/``private``);
* ``init``: a constructor's member initializer (field, the expression's text, ``param`` when
  it is a parameter the constructor never assigns: its value is then the field's);
* ``write``: a member assigned, incremented, having its address taken or bound to a
  non-const reference argument (``std::swap(u_, f_)``), anywhere;
* ``free``: a pointer member deleted or given to ``free``;
* ``escape``: a pointer member mentioned in a function returning a pointer or reference
  (which may return it, an element's address or a reference to one), or its value stored
  anywhere but a local variable (a global, another member), also through a local copy
  (``T *a = this->a; ... g = a;``);
* ``handout``: a pointer member (or a local copy of it) stored into a reference parameter
  of type pointer-to-const (``void get(const T *&out) { out = a; }``, BabelStream's
  ``get_arrays``): the caller may read the storage on the host through it, never write it
  (omp.lifetime treats the function as a host reader and checks its callers).
"""

from __future__ import annotations

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.host.facts import ASSIGNMENTS, THROUGH, UNARY_ROLES, unary_kind
from s2s.frontend.host.tree import HostTree, host_tree
from s2s.model.host import ClassFact

_CLASS_KINDS = frozenset({"CLASS_DECL", "STRUCT_DECL", "CLASS_TEMPLATE"})
#: expressions a pointer's value passes through on its way to a ``return`` or a store
_HANDLES = frozenset({"POINTER", "LVALUEREFERENCE", "RVALUEREFERENCE"})
_CARRY = THROUGH | {"CONDITIONAL_OPERATOR", "ARRAY_SUBSCRIPT_EXPR"}


def has_pointer_fields(ctx: ExtractContext) -> bool:
    """Whether a class of the main file has a data member of pointer type, or the file's
    code names a pointer member of a project header's class (cheap: only the ``FIELD_DECL``
    cursors' types, and the members that ``MEMBER_REF_EXPR`` cursors name, are looked up)."""
    for node in ctx.nodes():
        if node.kind == "FIELD_DECL" and _kind(node.cursor) == "pointer":
            return True
        if node.kind == "MEMBER_REF_EXPR":
            field = node.cursor.referenced
            if field is not None and field.kind.name == "FIELD_DECL" and \
                    _kind(field) == "pointer" and not field.location.is_in_system_header and \
                    field.location.file is not None and \
                    field.location.file.name != ctx.path:
                return True
    return False


def pointer_field_facts(ctx: ExtractContext) -> list[ClassFact]:
    """The facts of the module doc for every class with a pointer member."""
    tree = host_tree(ctx)
    fields: dict[str, dict[str, str]] = {}  # class -> field -> kind
    out: list[ClassFact] = []
    copies: dict = {}  # local copy of a pointer member (cursor) -> (class, member)
    for i, node in enumerate(tree.nodes):
        if node.kind in _CLASS_KINDS and node.cursor.is_definition() and node.cursor.spelling:
            found = _fields(tree, i)
            if any(kind == "pointer" for _, kind, _ in found):
                fields[node.cursor.spelling] = {name: kind for name, kind, _ in found}
                cls = node.cursor.spelling
                out += [ClassFact(cls, "field", span, (name, kind, access))
                        for (name, kind, access), span in zip(found, _field_spans(tree, i),
                                                              strict=True)]
    for i, node in enumerate(tree.nodes):
        kind = node.kind
        if kind == "CONSTRUCTOR" and node.cursor.is_definition():
            owner = node.cursor.semantic_parent
            _known(fields, owner)
            if owner is not None and owner.spelling in fields:
                out += _initializers(tree, i, owner.spelling)
        elif kind == "MEMBER_REF_EXPR":  # (a member initializer's is a MEMBER_REF)
            field = node.cursor.referenced
            owner = field.semantic_parent if field is not None else None
            _known(fields, owner)
            if owner is None or owner.spelling not in fields or \
                    field.spelling not in fields[owner.spelling]:
                continue
            cls, name = owner.spelling, field.spelling
            pointer = fields[cls][name] == "pointer"
            # (``free(a)`` in a template is a dependent call: not matched to a declaration)
            if pointer and _freed(tree, i):
                out.append(ClassFact(cls, "free", tree.span(i), (name,)))
            elif _written(tree, i):
                out.append(ClassFact(cls, "write", tree.span(i), (name,)))
            elif pointer and (how := _escapes(tree, i)):
                out.append(ClassFact(cls, how, tree.span(i), (name,)))
            elif pointer:
                copy = _local_copy(tree, i)
                if copy is not None:
                    copies[copy] = (cls, name)
    for i, node in enumerate(tree.nodes):
        if node.kind == "DECL_REF_EXPR" and node.cursor.referenced in copies:
            how = _escapes(tree, i)
            if how:
                cls, name = copies[node.cursor.referenced]
                out.append(ClassFact(cls, how, tree.span(i), (name,)))
    return out


def _local_copy(tree: HostTree, i: int):
    """The local variable the pointer member at node ``i`` initialises (``T *a = this->a;``),
    whose mentions then stand for the member's value, or None."""
    p = tree.parent[i]
    while p >= 0 and tree.kinds[p] in THROUGH:
        p = tree.parent[p]
    if p < 0 or tree.kinds[p] != "VAR_DECL":
        return None
    cursor = tree.nodes[p].cursor
    if cursor.type.get_canonical().kind.name != "POINTER" or \
            cursor.storage_class.name == "STATIC":
        return None
    return cursor


def _known(fields: dict, owner) -> None:
    """Add to ``fields`` a class defined in a project header (BabelStream's ``OMPStream.h``)
    whose member functions this file defines: its fields, read from its cursor (its
    ``field`` facts come with its definition: frontend.cxx.classes)."""
    if owner is not None and owner.spelling not in fields and _project_class(owner):
        fields[owner.spelling] = {name: kind for name, kind, _ in cursor_fields(owner)}


def _project_class(cursor) -> bool:
    """A class definition with a pointer member outside the main file and outside system
    headers."""
    if cursor.kind.name not in _CLASS_KINDS or not cursor.is_definition() or \
            cursor.location.is_in_system_header or not cursor.spelling:
        return False
    return any(k == "pointer" for _, k, _ in cursor_fields(cursor))


def cursor_fields(cursor) -> list[tuple[str, str, str]]:
    """(name, kind, access) of each data member of the class at ``cursor``."""
    default_public = cursor.kind.name == "STRUCT_DECL"
    out = []
    for child in cursor.get_children():
        if child.kind.name == "FIELD_DECL":
            access = child.access_specifier.name
            public = access == "PUBLIC" or (access == "INVALID" and default_public)
            out.append((child.spelling, _kind(child), "public" if public else "private"))
    return out


def _kind(cursor) -> str:
    canon = cursor.type.get_canonical().kind.name
    if canon == "POINTER":
        return "pointer"
    if canon in ("INT", "UINT", "LONG", "ULONG", "LONGLONG", "ULONGLONG", "SHORT", "USHORT"):
        return "scalar"
    return "other"


def _fields(tree: HostTree, i: int) -> list[tuple[str, str, str]]:
    default_public = tree.kinds[i] == "STRUCT_DECL"
    out = []
    for k in tree.children[i]:
        if tree.kinds[k] == "FIELD_DECL":
            cursor = tree.nodes[k].cursor
            access = cursor.access_specifier.name
            public = access == "PUBLIC" or (access == "INVALID" and default_public)
            out.append((cursor.spelling, _kind(cursor), "public" if public else "private"))
    return out


def _field_spans(tree: HostTree, i: int) -> list:
    return [tree.span(k) for k in tree.children[i] if tree.kinds[k] == "FIELD_DECL"]


def _initializers(tree: HostTree, c: int, cls: str) -> list[ClassFact]:
    """``init`` facts of the constructor at node ``c``: each ``MEMBER_REF`` child is followed
    by its initializer expression."""
    kids = tree.children[c]
    out = []
    for a, b in zip(kids, kids[1:], strict=False):
        if tree.kinds[a] != "MEMBER_REF":
            continue
        value = b
        while tree.kinds[value] in THROUGH and len(tree.children[value]) == 1:
            value = tree.children[value][0]
        param = ""
        ref = tree.nodes[value].cursor.referenced if tree.kinds[value] == "DECL_REF_EXPR" \
            else None
        if ref is not None and ref.kind.name == "PARM_DECL" and \
                not _parameter_written(tree, c, ref):
            param = "param"
        out.append(ClassFact(cls, "init", tree.span(b),
                             (tree.nodes[a].cursor.spelling, tree.expr(b).text, param)))
    return out


def _parameter_written(tree: HostTree, c: int, param) -> bool:
    for k in range(c + 1, tree.end[c]):
        if tree.kinds[k] == "DECL_REF_EXPR" and tree.nodes[k].cursor.referenced == param and \
                _written(tree, k):
            return True
    return False


def _up(tree: HostTree, i: int, through) -> tuple[int, int]:
    """(the node below, the first enclosing node not of a kind in ``through``)."""
    j, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in through:
        j, p = p, tree.parent[p]
    return j, p


def _written(tree: HostTree, i: int) -> bool:
    """The mention at node ``i`` is assigned, stepped, has its address taken or is bound to
    a non-const reference parameter."""
    j, p = _up(tree, i, THROUGH)
    if p < 0:
        return False
    kind, kids = tree.kinds[p], tree.children[p]
    if kind == "UNARY_OPERATOR":
        return UNARY_ROLES.get(unary_kind(tree.nodes[p].cursor)) in ("assign", "address")
    if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR"):
        return tree.nodes[p].cursor.binary_operator.name in ASSIGNMENTS and kids[:1] == [j]
    if kind == "CALL_EXPR" and kids[:1] != [j]:
        return _reference_argument(tree, p, j)
    return False


def _reference_argument(tree: HostTree, call: int, j: int) -> bool:
    callee = tree.nodes[call].cursor.referenced
    if callee is None:
        return True  # not known: assume it may write
    args = list(tree.nodes[call].cursor.get_arguments())
    position = next((k for k, a in enumerate(args) if a == tree.nodes[j].cursor), None)
    types = [a.type for a in callee.get_arguments()] if callee.kind.name in FUNCTION_KINDS \
        else []
    if position is None or position >= len(types):
        return position is None  # not matched: assume it may write; a C vararg: by value
    canon = types[position].get_canonical()
    return canon.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE") and \
        not canon.get_pointee().is_const_qualified()


def _freed(tree: HostTree, i: int) -> bool:
    """The pointer member at node ``i`` is deleted or given to ``free``."""
    j, p = _up(tree, i, THROUGH)
    if p < 0:
        return False
    if tree.kinds[p] == "CXX_DELETE_EXPR":
        return True
    return tree.kinds[p] == "CALL_EXPR" and tree.children[p][:1] != [j] and \
        _callee_spelling(tree, p) in ("free", "std::free")


def _callee_spelling(tree: HostTree, call: int) -> str:
    """The name a call calls; a dependent call in a template (``free(a)`` with ``T *a``)
    has no spelling of its own, only its callee's unresolved ``OVERLOADED_DECL_REF``."""
    spelling = tree.nodes[call].cursor.spelling
    k = call
    while not spelling and tree.children[k]:
        k = tree.children[k][0]
        if tree.kinds[k] == "OVERLOADED_DECL_REF":
            spelling = tree.nodes[k].cursor.spelling
        elif tree.kinds[k] not in THROUGH | {"DECL_REF_EXPR"}:
            break
    return spelling


def _escapes(tree: HostTree, i: int) -> str:
    """``escape`` when the pointer member at node ``i`` (or an element's address or
    reference) is returned from a function returning a pointer or reference (any mention in
    such a function counts: ``double *p = u_; return p;``), or stored but to a local variable;
    ``handout`` when it is stored into a pointer-to-const reference parameter; else ''."""
    function = _enclosing_function(tree, i)
    if function is not None and function.kind.name != "CONSTRUCTOR" and \
            function.result_type.get_canonical().kind.name in _HANDLES:
        return "escape"
    j, p = i, tree.parent[i]
    while p >= 0 and (tree.kinds[p] in _CARRY or _address_or_offset(tree, p)):
        j, p = p, tree.parent[p]
    if p < 0:
        return ""
    kind = tree.kinds[p]
    if tree.nodes[j].cursor.type.get_canonical().kind.name != "POINTER":
        # an element's value (``s = u_[i]``) carries no pointer, unless bound to a
        # non-const reference that outlives the statement
        writable = kind == "VAR_DECL" and _writable_reference(tree.nodes[p].cursor)
        return "escape" if writable else ""
    if kind == "BINARY_OPERATOR" and tree.nodes[p].cursor.binary_operator.name == "Assign" \
            and tree.children[p][1:] == [j]:
        target = tree.children[p][0]
        if _const_pointer_parameter(tree, target):
            return "handout"
        return "" if _local_variable(tree, target) else "escape"
    if kind == "VAR_DECL":
        return "escape" if tree.nodes[p].cursor.storage_class.name == "STATIC" else ""
    return ""


def _const_pointer_parameter(tree: HostTree, k: int) -> bool:
    """Node ``k`` names a parameter of type reference to pointer-to-const (``const T *&``)."""
    while tree.kinds[k] in THROUGH and tree.children[k]:
        k = tree.children[k][0]
    if tree.kinds[k] != "DECL_REF_EXPR":
        return False
    ref = tree.nodes[k].cursor.referenced
    if ref is None or ref.kind.name != "PARM_DECL":
        return False
    canon = ref.type.get_canonical()
    if canon.kind.name != "LVALUEREFERENCE":
        return False
    pointer = canon.get_pointee()
    return pointer.kind.name == "POINTER" and pointer.get_pointee().is_const_qualified()


def _writable_reference(cursor) -> bool:
    canon = cursor.type.get_canonical()
    return canon.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE") and \
        not canon.get_pointee().is_const_qualified()


def _address_or_offset(tree: HostTree, p: int) -> bool:
    """``&u_[k]`` and ``u_ + k`` still carry the pointer."""
    kind = tree.kinds[p]
    if kind == "UNARY_OPERATOR":
        return UNARY_ROLES.get(unary_kind(tree.nodes[p].cursor)) == "address"
    if kind == "BINARY_OPERATOR":
        return tree.nodes[p].cursor.binary_operator.name in ("Add", "Sub")
    return False


def _local_variable(tree: HostTree, k: int) -> bool:
    while tree.kinds[k] in THROUGH and tree.children[k]:
        k = tree.children[k][0]
    if tree.kinds[k] != "DECL_REF_EXPR":
        return False
    ref = tree.nodes[k].cursor.referenced
    return ref is not None and ref.kind.name == "VAR_DECL" and \
        ref.semantic_parent is not None and ref.semantic_parent.kind.name in FUNCTION_KINDS \
        and ref.storage_class.name != "STATIC"


def _enclosing_function(tree: HostTree, p: int):
    while p >= 0 and tree.kinds[p] not in FUNCTION_KINDS:
        p = tree.parent[p]
    return tree.nodes[p].cursor if p >= 0 else None
