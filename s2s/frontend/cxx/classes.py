"""Facts about the C++ classes of a file, for mapping a class's vectors per object.

The OpenMP pass may keep the ``std::vector`` members of a class mapped on the device from
the end of each constructor to the start of the destructor (omp.lifetime) only when nothing
but the class's own member functions can reach that storage and no object is copied: a copy
has new storage nobody maps, a derived class's or a friend's code is not surveyed, and an
object with static storage outlives the offload runtime. These facts are read here from the
cursors (the class body, its fields' access, constructions that call a copy or move
constructor, copy and move assignments), only in C++ files that include ``<vector>`` or
have a class with a pointer member (whose own facts are frontend.cxx.class_fields').
"""

from __future__ import annotations

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.toolchain import is_tool_header
from s2s.frontend.cxx.accessors import accessor_facts
from s2s.frontend.cxx.class_fields import cursor_fields, has_pointer_fields, pointer_field_facts
from s2s.frontend.cxx.member_calls import member_call_facts
from s2s.frontend.host.containers import is_vector_type, unit_has_vectors
from s2s.model.host import ClassFact
from s2s.model.span import SourceSpan

_CLASS_KINDS = frozenset({"CLASS_DECL", "STRUCT_DECL", "CLASS_TEMPLATE"})
_NAMESPACE_KINDS = frozenset({"TRANSLATION_UNIT", "NAMESPACE"})
_FUNCTION_MEMBERS = frozenset({"CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR", "FUNCTION_TEMPLATE",
                               "CONVERSION_FUNCTION"})


def extract_class_facts(ctx: ExtractContext) -> tuple[ClassFact, ...]:
    """Every class fact of the file's main-file cursors, in walk order (then the facts of
    pointer members, frontend.cxx.class_fields)."""
    headers = header_pointer_classes(ctx)
    pointers = has_pointer_fields(ctx) or bool(headers)
    if not pointers and not unit_has_vectors(ctx):
        return ()
    out = _header_facts(headers)
    for node in ctx.nodes():
        cursor, kind = node.cursor, node.kind
        if kind in _CLASS_KINDS and cursor.is_definition() and cursor.spelling:
            if not _explicit_instantiation(cursor):
                out.append(_definition(ctx, cursor))
        elif kind == "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION" and cursor.spelling:
            out.append(ClassFact(cursor.spelling, "specialized", ctx.span(cursor)))
        elif kind == "CXX_BASE_SPECIFIER":
            base = cursor.referenced
            if base is not None and base.spelling:
                out.append(ClassFact(base.spelling, "derived", ctx.span(cursor)))
        elif kind == "FRIEND_DECL":
            owner = cursor.semantic_parent
            if owner is not None and owner.spelling:
                out.append(ClassFact(owner.spelling, "friend", ctx.span(cursor)))
        elif kind == "CALL_EXPR":
            copied = _copied_class(cursor)
            if copied:
                out.append(ClassFact(copied, "copy", ctx.span(cursor)))
        elif kind == "VAR_DECL":
            owner = _static_object(cursor)
            if owner:
                out.append(ClassFact(owner, "static", ctx.span(cursor)))
        elif kind == "CONSTRUCTOR" and cursor.is_definition() and _delegates(cursor):
            out.append(ClassFact(cursor.semantic_parent.spelling, "delegating",
                                 ctx.span(cursor)))
    accessors = accessor_facts(ctx)
    # calls that may touch an accessor's storage matter only where a pointer took one
    calls = member_call_facts(ctx) if any(f.kind == "accessor_value" for f in accessors) \
        else []
    return tuple(out + (pointer_field_facts(ctx) if pointers else []) + accessors + calls)


def header_pointer_classes(ctx: ExtractContext) -> list:
    """(class cursor, its base specifiers' cursors) of the classes defined in the unit's
    project headers (BabelStream's ``OMPStream.h``) that have a pointer member, and of every
    project-header class deriving from another: a class the main file's member functions
    implement, whose objects the main file makes, or that another header derives from one
    of those."""
    out = []
    stack = list(ctx.header_top_level())
    while stack:
        cursor = stack.pop()
        kind = cursor.kind.name
        if kind == "NAMESPACE":
            stack.extend(cursor.get_children())
        elif kind in _CLASS_KINDS and cursor.is_definition() and cursor.spelling and \
                not is_tool_header(cursor.location.file.name) and \
                not _explicit_instantiation(cursor):
            children = list(cursor.get_children())
            bases = [c for c in children if c.kind.name == "CXX_BASE_SPECIFIER"]
            if bases or any(c.kind.name == "FIELD_DECL" and
                             c.type.get_canonical().kind.name == "POINTER" for c in children):
                out.append((cursor, bases))
    return out


def _header_facts(headers: list) -> list[ClassFact]:
    """``definition`` and ``field`` facts of the header classes with a pointer member, and
    ``derived`` facts of the header classes' bases, spanned in the header's own offsets (the
    same facts from every unit that includes it, so a program sees each once)."""
    out = []
    for cursor, bases in headers:
        fields = cursor_fields(cursor)
        # (a member function whose body is in the header is no unit's code: the facts of
        # what it does with the members would be missing, so the class gets no definition
        # fact and omp.lifetime leaves it alone)
        if any(kind == "pointer" for _, kind, _ in fields) and not _inline_bodies(cursor):
            out.append(ClassFact(cursor.spelling, "definition", header_span(cursor)))
            field_cursors = [c for c in cursor.get_children() if c.kind.name == "FIELD_DECL"]
            out += [ClassFact(cursor.spelling, "field", header_span(c), facts)
                    for facts, c in zip(fields, field_cursors, strict=True)]
        for base in bases:
            target = base.referenced
            if target is not None and target.spelling:
                out.append(ClassFact(target.spelling, "derived", header_span(base)))
    return out


def _inline_bodies(cursor) -> bool:
    """Whether the class at ``cursor`` defines a member function (or a friend) in its body."""
    return any(c.kind.name in _FUNCTION_MEMBERS and c.is_definition()
               for c in cursor.get_children()) or \
        any(c.kind.name == "FRIEND_DECL" for c in cursor.get_children())


def header_span(cursor) -> SourceSpan:
    """The span of a cursor of a project header, in that header's offsets and name."""
    extent = cursor.extent
    return SourceSpan(extent.start.file.name, extent.start.offset, extent.end.offset,
                      extent.start.line, extent.start.column, extent.end.line,
                      extent.end.column)


def _explicit_instantiation(cursor) -> bool:
    """``template class Stream<float>;``: libclang reports the instantiated class as a
    definition, but it has no body of its own (an explicit specialisation has one: its
    tokens hold a brace)."""
    if cursor.kind.name != "CLASS_DECL" and cursor.kind.name != "STRUCT_DECL":
        return False
    tokens = [t.spelling for t in cursor.get_tokens()]
    return tokens[:1] == ["template"] and tokens[1:2] != ["<"] and "{" not in tokens


def _delegates(constructor) -> bool:
    """``Field() : Field(100) {}``: the constructor names its own class in its initializers
    (the other constructor then runs first, and does what a constructor's end does)."""
    owner = constructor.semantic_parent
    for child in constructor.get_children():
        if child.kind.name == "TYPE_REF":
            target = child.referenced
            if target is not None and owner is not None and target == owner:
                return True
    return False


def _definition(ctx: ExtractContext, cursor) -> ClassFact:
    public, indent = [], ""
    default_public = cursor.kind.name == "STRUCT_DECL" or (
        cursor.kind.name == "CLASS_TEMPLATE" and _struct_template(cursor))
    for child in cursor.get_children():
        name = child.kind.name
        if name in ("FIELD_DECL", "CXX_METHOD", "CONSTRUCTOR") and not indent:
            indent = ctx.span(child).indent
        if name == "FIELD_DECL" and _public(child, default_public) and \
                is_vector_type(child.type.get_canonical()):
            public.append(child.spelling)
    return ClassFact(cursor.spelling, "definition", ctx.span(cursor), tuple(public), indent)


def _struct_template(cursor) -> bool:
    """``template <class T> struct S``: its members are public by default (the cursor kind
    is the same as a ``class`` template's; the keyword is the first token after ``>``)."""
    depth = 0
    for token in cursor.get_tokens():
        text = token.spelling
        depth += (text == "<") - (text == ">")
        if depth == 0 and text in ("struct", "class", "union") and token.kind.name == "KEYWORD":
            return text != "class"
    return False


def _public(field, default_public: bool) -> bool:
    access = field.access_specifier.name
    return access == "PUBLIC" or (access == "INVALID" and default_public)


def _copied_class(cursor) -> str | None:
    """The class whose object the call copies or moves (a copy/move construction or
    assignment), else None."""
    callee = cursor.referenced
    if callee is None:
        return None
    kind = callee.kind.name
    if kind == "CONSTRUCTOR" and (callee.is_copy_constructor() or callee.is_move_constructor()):
        return callee.semantic_parent.spelling
    if kind == "CXX_METHOD" and callee.spelling == "operator=":
        owner = callee.semantic_parent
        return owner.spelling if owner is not None else None
    return None


def _static_object(cursor) -> str | None:
    """The class of an object with static storage (namespace scope, or ``static``)."""
    record = cursor.type.get_canonical()
    if record.kind.name != "RECORD":
        return None
    parent = cursor.semantic_parent
    static = (parent is not None and parent.kind.name in _NAMESPACE_KINDS) or \
        cursor.storage_class.name == "STATIC"
    declaration = record.get_declaration()
    return declaration.spelling if static and declaration is not None else None
