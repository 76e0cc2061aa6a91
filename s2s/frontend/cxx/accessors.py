"""Pointers a caller takes through a class's accessor (issue 28, 3c).

``int *rp = A.row_ptr();`` with ``int *row_ptr() { return row_ptr_.data(); }`` hands the
caller the storage of a private ``std::vector`` member. The caller cannot name
``row_ptr_.size()`` in a map clause (the member is private), so without more the element
count of ``rp`` is unknown and every target construct reading it keeps an unmapped pointer.
The count is a class invariant when one member function alone changes the vector's size
(``reserve_pattern(int rows, int nnz) { nrows_ = rows; ...; row_ptr_.resize(rows + 1); }``)
and the scalar members the size is written in have public getters (``int rows() const {
return nrows_; }``): ``rp`` then holds ``A.rows() + 1`` elements. The method may be defined
in another file of the program, so the facts are read here per file, from the cursors, and
joined by omp.accessor_counts:

* ``accessor_value``: a local pointer initialised with an accessor's value; ``names`` =
  (pointer, function, object, ``.`` or ``->``, vector member, element type); only for
  accessors whose body is ``return member.data();``, of a private member of a class without
  friends;
* ``methods``: the class's non-const member functions and constructors (``displayname``),
  each of which must have its ``member_writes`` fact somewhere in the program;
* ``getter``: (method, member) for a const member function without parameters whose body is
  ``return member;``;
* ``member_writes``: (method, members...) the members a member function assigns, steps,
  takes the address of, binds to a non-const reference or, for a vector, may reallocate;
* ``member_mentions``: (method, members...) every member a member function's body names
  (frontend.cxx.member_calls: a call of it from another file touches those);
* ``vector_resize``: (method, vector member, count) for a ``member.resize(count)`` that is a
  statement of the method's outermost block, the count written in members: each parameter it
  names replaced by the member the same block assigns it to (``nrows_ = rows;``), '' where
  that is not so (a local, a call, a parameter the method writes).
"""

from __future__ import annotations

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.host.containers import REALLOCATING_MEMBERS, element_type, is_vector_type
from s2s.frontend.host.facts import ASSIGNMENTS, THROUGH, UNARY_ROLES, unary_kind
from s2s.model.host import ClassFact

_METHODS = frozenset({"CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR"})
_VECTOR_READS = frozenset({"data", "size", "empty", "capacity", "operator[]", "at", "begin",
                           "end", "cbegin", "cend", "front", "back", "max_size"})


def accessor_facts(ctx: ExtractContext) -> list[ClassFact]:
    """The facts of the module doc for the main file's accessor values and member
    functions (and, for a class defined in a header, its inline ones)."""
    out: list[ClassFact] = []
    described: set[str] = set()
    for node in ctx.nodes():
        cursor = node.cursor
        if node.kind == "VAR_DECL" and node.function:
            found = _accessor_value(cursor)
            if found is None:
                continue
            owner, object_text, arrow, field = found
            span = ctx.span(cursor)
            element = element_type(field.type.get_canonical())
            out.append(ClassFact(owner.spelling, "accessor_value", span,
                                 (cursor.spelling, node.function, object_text, arrow,
                                  field.spelling, element)))
            if owner.spelling not in described:
                described.add(owner.spelling)
                out += _class_facts(owner, span)
        elif node.kind in _METHODS and cursor.is_definition():
            owner = cursor.semantic_parent
            if owner is not None and _vector_fields(owner):
                out += _method_facts(cursor, owner, ctx.span(cursor))
    return out


def strip_through(cursor):
    """``cursor`` with implicit conversions, parentheses and casts looked through."""
    while cursor.kind.name in THROUGH:
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def method_call_on_variable(call):
    """(method, the object's ``DECL_REF_EXPR``) for a call ``obj.method(...)`` or
    ``obj->method(...)`` on a variable; None otherwise."""
    method = call.referenced
    callee = next(iter(call.get_children()), None)
    if method is None or method.kind.name != "CXX_METHOD" or callee is None or \
            callee.kind.name != "MEMBER_REF_EXPR":
        return None
    objects = list(callee.get_children())
    target = strip_through(objects[0]) if len(objects) == 1 else None
    if target is None or target.kind.name != "DECL_REF_EXPR":
        return None
    return method, target


def _accessor_value(decl):
    """(class, object text, '.' or '->', vector field) when ``decl`` is ``T *p =
    obj.accessor();`` with an accessor of the module doc."""
    if decl.type.get_canonical().kind.name != "POINTER":
        return None
    kids = [k for k in decl.get_children() if k.kind.is_expression()]
    if len(kids) != 1:
        return None
    call = strip_through(kids[0])
    if call.kind.name != "CALL_EXPR" or list(call.get_arguments()):
        return None
    found = method_call_on_variable(call)
    if found is None:
        return None
    method, target = found
    owner = method.semantic_parent
    field = _returned_data(method.get_definition() or method, owner)
    if field is None or field.access_specifier.name != "PRIVATE" or _has_friends(owner):
        return None
    arrow = "->" if target.type.get_canonical().kind.name == "POINTER" else "."
    return owner, target.spelling, arrow, field


def _returned_data(method, owner):
    """The vector member ``m`` of ``owner`` when ``method``'s body is ``return m.data();``."""
    call = _returned_value(method)
    if call is None or call.kind.name != "CALL_EXPR" or call.spelling != "data":
        return None
    member = next(iter(call.get_children()), None)
    if member is None or member.kind.name != "MEMBER_REF_EXPR":
        return None
    inner = list(member.get_children())
    field = _own_field(strip_through(inner[0]), owner) if len(inner) == 1 else None
    return field if field is not None and is_vector_type(field.type.get_canonical()) else None


def _own_field(ref, owner):
    """The field of ``owner`` that ``ref`` names as a member of ``*this``, else None."""
    if ref.kind.name != "MEMBER_REF_EXPR":
        return None
    field = ref.referenced
    if field is None or field.kind.name != "FIELD_DECL" or field.semantic_parent != owner:
        return None
    base = [strip_through(k) for k in ref.get_children()]
    if base and (len(base) != 1 or base[0].kind.name != "CXX_THIS_EXPR"):
        return None
    return field


def _has_friends(owner) -> bool:
    return any(k.kind.name == "FRIEND_DECL" for k in owner.get_children())


def _vector_fields(owner) -> bool:
    return owner.kind.name in ("CLASS_DECL", "STRUCT_DECL") and any(
        k.kind.name == "FIELD_DECL" and is_vector_type(k.type.get_canonical())
        for k in owner.get_children())


def _class_facts(owner, span) -> list[ClassFact]:
    """``methods``, ``getter`` and the inline member functions' facts of ``owner``."""
    cls, out, methods = owner.spelling, [], []
    for member in owner.get_children():
        if member.kind.name not in _METHODS:
            continue
        if member.kind.name == "CXX_METHOD" and member.is_const_method():
            field = _returned_field(member, owner)
            if field is not None:
                out.append(ClassFact(cls, "getter", span, (member.spelling, field)))
            continue
        methods.append(member.displayname)
        if member.is_definition():
            out += _method_facts(member, owner, span)
    return [ClassFact(cls, "methods", span, tuple(methods)), *out]


def _returned_field(method, owner) -> str | None:
    """The field of ``owner`` that ``method``'s body returns (``return n_;``), or None."""
    value = _returned_value(method)
    field = _own_field(value, owner) if value is not None else None
    return field.spelling if field is not None else None


def _returned_value(method):
    """The expression (casts stripped) of ``method``'s body when it is a definition without
    parameters whose body is one ``return e;``; None otherwise."""
    if not method.is_definition() or list(method.get_arguments()):
        return None
    body = [k for k in method.get_children() if k.kind.name == "COMPOUND_STMT"]
    statements = list(body[0].get_children()) if len(body) == 1 else []
    if len(statements) != 1 or statements[0].kind.name != "RETURN_STMT":
        return None
    value = list(statements[0].get_children())
    return strip_through(value[0]) if len(value) == 1 else None


def _method_facts(method, owner, span) -> list[ClassFact]:
    """``member_writes`` and ``vector_resize`` of one member function's definition."""
    cls, name = owner.spelling, method.displayname
    written: set[str] = set()
    parents = {}
    stack = [method]
    while stack:
        cursor = stack.pop()
        for child in cursor.get_children():
            parents[child.hash] = cursor
            stack.append(child)
            if child.kind.name == "MEMBER_REF" and cursor.kind.name == "CONSTRUCTOR":
                written.add(child.spelling)  # a member initializer
            elif child.kind.name == "MEMBER_REF_EXPR":
                field = child.referenced
                if field is not None and field.kind.name == "FIELD_DECL" and \
                        field.semantic_parent == owner and _written(child, cursor, parents):
                    written.add(field.spelling)
    out = [ClassFact(cls, "member_writes", span, (name, *sorted(written))),
           ClassFact(cls, "member_mentions", span, (name, *member_mentions(method, owner)))]
    for field, count in _resizes(method, owner):
        out.append(ClassFact(cls, "vector_resize", span, (name, field, count)))
    return out


def member_mentions(method, owner) -> list[str]:
    """The members of ``owner`` that the definition ``method`` names, sorted; all of its
    fields when it calls another member function of ``owner`` (which may touch any)."""
    found = set()
    for c in method.walk_preorder():
        ref = c.referenced if c.kind.name in ("MEMBER_REF_EXPR", "MEMBER_REF", "CALL_EXPR") \
            else None
        if ref is None or ref.semantic_parent != owner:
            continue
        if ref.kind.name == "FIELD_DECL":
            found.add(ref.spelling)
        elif ref.kind.name in _METHODS and ref != method:
            found.update(k.spelling for k in owner.get_children()
                         if k.kind.name == "FIELD_DECL")
    return sorted(found)


def _written(ref, parent, parents) -> bool:
    """The member mention ``ref`` (whose parent is ``parent``) is written (module doc)."""
    vector = is_vector_type(ref.referenced.type.get_canonical())
    j, p = ref, parent
    while p is not None and p.kind.name in THROUGH:
        j, p = p, parents.get(p.hash)
    if p is None:
        return False
    kind = p.kind.name
    if kind == "UNARY_OPERATOR":
        return UNARY_ROLES.get(unary_kind(p)) in ("assign", "address")
    if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR"):
        first = next(iter(p.get_children()), None)
        return p.binary_operator.name in ASSIGNMENTS and first is not None and first == j
    if kind == "RETURN_STMT":  # a non-const reference handed out: callers may write it
        return _enclosing_result_is_handle(p, parents)
    if vector and kind == "MEMBER_REF_EXPR":
        return p.spelling in REALLOCATING_MEMBERS or p.spelling not in _VECTOR_READS
    if kind == "CALL_EXPR":
        if vector and p.spelling == "operator[]":
            return False
        return vector or p.spelling.startswith("operator") or _by_reference(p, j)
    return False


def _enclosing_result_is_handle(statement, parents) -> bool:
    function = statement
    while function is not None and function.kind.name not in _METHODS:
        function = parents.get(function.hash)
    if function is None:
        return True
    canon = function.result_type.get_canonical()
    return canon.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE", "POINTER") and \
        not canon.get_pointee().is_const_qualified()


def _by_reference(call, argument) -> bool:
    callee = call.referenced
    if callee is None:
        return True
    args = list(call.get_arguments())
    position = next((k for k, a in enumerate(args) if a == argument), None)
    types = [a.type for a in callee.get_arguments()]
    if position is None or position >= len(types):
        return position is None
    canon = types[position].get_canonical()
    return canon.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE") and \
        not canon.get_pointee().is_const_qualified()


def _resizes(method, owner) -> list[tuple[str, str]]:
    """(vector member, count in members) per ``member.resize(count)`` statement of the
    method's outermost block (module doc)."""
    body = [k for k in method.get_children() if k.kind.name == "COMPOUND_STMT"]
    if len(body) != 1:
        return []
    statements = [strip_through(s) for s in body[0].get_children()]
    stored = _stored_parameters(statements, owner)
    out = []
    for statement in statements:
        if statement.kind.name != "CALL_EXPR" or statement.spelling != "resize":
            continue
        callee = next(iter(statement.get_children()), None)
        inner = list(callee.get_children()) if callee is not None else []
        field = _own_field(strip_through(inner[0]), owner) if len(inner) == 1 else None
        args = list(statement.get_arguments())
        if field is None or not is_vector_type(field.type.get_canonical()) or not args:
            continue
        out.append((field.spelling, _in_members(args[0], stored, method, owner)))
    return out


def _stored_parameters(statements, owner) -> dict:
    """parameter cursor -> the member a statement ``member = parameter;`` stores it in."""
    out = {}
    for statement in statements:
        if statement.kind.name != "BINARY_OPERATOR" or statement.binary_operator.name != "Assign":
            continue
        left, right = (strip_through(k) for k in statement.get_children())
        field = _own_field(left, owner)
        param = right.referenced if right.kind.name == "DECL_REF_EXPR" else None
        if field is not None and param is not None and param.kind.name == "PARM_DECL":
            out[param.hash] = field.spelling
    return out


def _in_members(expr, stored: dict, method, owner) -> str:
    """The text of ``expr`` with each parameter replaced by its member; '' when it names
    anything else than parameters stored once, members of ``owner`` and constants."""
    pieces, replaced = [], []
    for cursor in expr.walk_preorder():
        kind = cursor.kind.name
        if kind in ("CALL_EXPR", "LAMBDA_EXPR"):
            return ""
        if kind == "MEMBER_REF_EXPR" and _own_field(cursor, owner) is None:
            return ""
        if kind != "DECL_REF_EXPR":
            continue
        ref = cursor.referenced
        if ref is not None and ref.kind.name == "ENUM_CONSTANT_DECL":
            continue
        if ref is None or ref.hash not in stored or _parameter_written(method, ref):
            return ""
        replaced.append(cursor)
    # rebuild from tokens: a parameter's token becomes its member
    names = {c.extent.start.offset: stored[c.referenced.hash] for c in replaced}
    for token in expr.get_tokens():
        pieces.append(names.get(token.extent.start.offset, token.spelling))
    return " ".join(pieces)


def _parameter_written(method, param) -> bool:
    stack, parents = [method], {}
    while stack:
        cursor = stack.pop()
        for child in cursor.get_children():
            parents[child.hash] = cursor
            stack.append(child)
            if child.kind.name == "DECL_REF_EXPR" and child.referenced == param:
                j, p = child, cursor
                while p is not None and p.kind.name in THROUGH:
                    j, p = p, parents.get(p.hash)
                if p is not None and p.kind.name == "UNARY_OPERATOR" and \
                        UNARY_ROLES.get(unary_kind(p)) in ("assign", "address"):
                    return True
                if p is not None and p.kind.name in ("BINARY_OPERATOR",
                                                     "COMPOUND_ASSIGNMENT_OPERATOR") and \
                        p.binary_operator.name in ASSIGNMENTS and \
                        next(iter(p.get_children()), None) == j:
                    return True
    return False
