"""Writes of a whole struct in host functions, as writes of each of its members (issue 28).

A struct given a value as a whole changes every member without a member expression:
``mesh = other;``, ``*pm = tmp;`` (an assigning operator call on a class of the program), or
the struct's storage handed to a library function that writes through it: ``memset(&mesh,
0, sizeof mesh)``, ``memcpy(&mesh, ...)``, ``fread(&mesh, ...)``, ``read(fd, pm, ...)``,
``std::swap(a, b)``. Each such write yields a :class:`s2s.model.host_facts.MemberWrite` of
every member of the struct (those of nested structs and base classes too) with ``whole``
set, so OpenMP's member counts, which ask whether a length member is written after the
allocation, see it. All from libclang's types: the left side's type is a record, the
argument a pointer to a record (or a record bound to a reference) whose parameter in the
callee's prototype is not ``const``; the callee is declared in a system header (a function
of the program has its own member writes extracted where it is defined; ``free`` writes
nothing that is read after). Records declared
in system headers (``std::vector``) are left out: their members are no program's counts.
"""

from __future__ import annotations

from s2s.frontend.host.facts import THROUGH
from s2s.frontend.host.tree import HostTree
from s2s.model.host_facts import MemberWrite

#: library calls that end the storage's life rather than write it (``free(p)``)
RELEASES = frozenset({"free"})
#: expressions whose first child leads to the variable written (``&x``, ``*p``, ``p->d``)
_TOWARDS_ROOT = THROUGH | {"UNARY_OPERATOR", "MEMBER_REF_EXPR"}
#: how deep nested structs and base classes are followed
_DEPTH = 4


def whole_struct_writes(tree: HostTree, i: int, function: str) -> list[MemberWrite]:
    """The member writes node ``i`` makes by writing a whole struct (module doc); none when
    it writes none."""
    out: list[MemberWrite] = []
    for node, written, role, value, through in record_writes(tree, i):
        # (C's ``SD = binary_read(in)``; a class's ``operator=`` is a call of its own)
        made_by = _maker(tree, value) if value is not None and \
            tree.kinds[i] == "BINARY_OPERATOR" else None
        out.extend(_writes(tree, node, written, role, i, function, made_by, through))
    return out


def record_writes(tree: HostTree, i: int
                  ) -> list[tuple[int, object, str, int | None, str | None]]:
    """(written expression, the record type it is written as, role, assigned value, the
    function only declared here that wrote it) for each struct node ``i`` writes as a whole
    (module doc): ``g = v`` gives ``(g, type of g, 'assign', v, None)``, ``memcpy(&g,
    ...)`` ``(&g, type of g, 'address', None, None)``, ``grid_load(&g, f)`` with
    ``grid_load`` only declared ``(&g, type of g, 'address', None, 'grid_load')``; the
    value only for a plain ``=`` (C's assignment, or a class's ``operator=`` with two
    operands). [] when ``i`` writes no struct. Worked out once per node (the member writes
    and the access scanner's copies both ask)."""
    memo = tree.ctx.memo("host.record_writes", _new_memo)
    found = memo.get(i)
    if found is None:
        found = memo[i] = _record_writes(tree, i)
    return found


def _new_memo(_ctx) -> dict:
    return {}


def _record_writes(tree: HostTree, i: int) -> list:
    kind = tree.kinds[i]
    kids = tree.children[i]
    if kind == "BINARY_OPERATOR" and kids and \
            tree.nodes[i].cursor.binary_operator.name == "Assign":
        return [(kids[0], tree.nodes[kids[0]].cursor.type, "assign",
                 kids[-1] if len(kids) == 2 else None, None)]
    if kind != "CALL_EXPR":
        return []
    callee = tree.nodes[i].cursor.referenced
    if callee is None:
        return []
    operands = [k for k in kids if tree.extent(k)[1] > tree.extent(k)[0]]
    if callee.spelling == "operator=":
        if not operands:
            return []
        return [(operands[0], tree.nodes[operands[0]].cursor.type, "assign",
                 operands[-1] if len(operands) == 2 else None, None)]
    through = declared_only(callee)
    if not (callee.location.is_in_system_header or through) or callee.spelling in RELEASES:
        return []
    out = []
    arguments = list(tree.nodes[i].cursor.get_arguments())
    params = list(callee.type.argument_types()) if callee.type.kind.name == "FUNCTIONPROTO" \
        else []
    for n, argument in enumerate(arguments):
        node = _node_of(tree, kids, argument)
        if node is None:
            continue
        while tree.kinds[node] in THROUGH and tree.children[node]:
            node = tree.children[node][0]
        param = params[n] if n < len(params) else None
        written = _written_type(tree.nodes[node].cursor.type, param)
        if written is not None:
            out.append((node, written, "address", None, through))
    return out


def declared_only(callee) -> str | None:
    """The name of ``callee`` when it is a function of the program's own headers that this
    file only declares (an outside library's ``grid_load(grid_t *g, ...)``): its body may
    write whatever its pointer parameters reach, and nothing here says what. None for a
    system function (library calls are judged by their prototypes), a function this file
    defines (its own writes are extracted where it is defined) and anything but a plain
    function. The program drops what such a call wrote where another of its files defines
    the function (:func:`s2s.model.program.merge`)."""
    if callee.kind.name != "FUNCTION_DECL" or callee.location.is_in_system_header:
        return None
    definition = callee.get_definition()
    return callee.spelling if definition is None or definition.is_null() else None


def pointer_members(record, depth: int = _DEPTH) -> list[str]:
    """The pointer members of ``record`` as paths below it (``.val``; ``.d.ptr`` for a
    pointer in a nested struct; a base class's members as the class's own), in declaration
    order: the pointers a write of the whole struct gives a new value. [] for no record or
    one of a system header."""
    return list(dict.fromkeys("." + ".".join(path) for path, canon in _fields(record, depth)
                              if canon.kind.name == "POINTER" and all(path)))


def _written_type(argument, param):
    """The record an argument of a library call may be written as: the pointee of a pointer
    to a record (not through a ``const`` parameter), or a record bound to a non-``const``
    reference; None otherwise."""
    arg = argument.get_canonical()
    target = param.get_canonical() if param is not None else None
    if target is not None and target.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE"):
        pointee = target.get_pointee()
        return None if pointee.is_const_qualified() else arg
    if arg.kind.name != "POINTER":
        return None
    if target is not None and target.kind.name == "POINTER" and \
            target.get_pointee().is_const_qualified():
        return None
    return arg.get_pointee()


def _node_of(tree: HostTree, kids, argument) -> int | None:
    """The child of the call whose cursor is ``argument`` (by extent)."""
    start, end = argument.extent.start.offset, argument.extent.end.offset
    for k in kids:
        if tree.extent(k) == (start, end):
            return k
    return None


def _writes(tree: HostTree, node: int, written, role: str, writer: int,
            function: str, made_by: str | None = None, through: str | None = None
            ) -> list[MemberWrite]:
    names = _members(written.get_canonical(), _DEPTH)
    if not names:
        return []
    span, extent, base = tree.span(node), tree.span(writer), _root(tree, node)
    return [MemberWrite(name, role, span, function, extent, base, None, True, made_by, through)
            for name in names]


def _maker(tree: HostTree, value: int) -> str | None:
    """The function whose call is the assigned value (``binary_read`` in ``SD =
    binary_read(in)``), from the call's referenced declaration; None for any other value."""
    while tree.kinds[value] in THROUGH and tree.children[value]:
        value = tree.children[value][0]
    if tree.kinds[value] != "CALL_EXPR":
        return None
    callee = tree.nodes[value].cursor.referenced
    return None if callee is None or callee.kind.name != "FUNCTION_DECL" else callee.spelling


def _members(record, depth: int) -> list[str]:
    """Names of ``record``'s members, those of its nested records and base classes
    included, in declaration order; [] for no record or one of a system header."""
    return list(dict.fromkeys(path[-1] for path, _ in _fields(record, depth) if path[-1]))


def _fields(record, depth: int, path: tuple[str, ...] = ()):
    """Each member of ``record`` as (its path of field names, its canonical type), a field
    before the members of its own record type, a base class's members as the class's own,
    ``depth`` records deep; nothing for no record or one of a system header (the one walk
    of :func:`_members` and :func:`pointer_members`)."""
    if depth <= 0 or record.kind.name != "RECORD":
        return
    decl = record.get_declaration()
    if decl is None or decl.location.is_in_system_header:
        return
    for child in decl.get_children():
        if child.kind.name == "FIELD_DECL":
            canon = child.type.get_canonical()
            yield path + (child.spelling,), canon
            yield from _fields(canon, depth - 1, path + (child.spelling,))
        elif child.kind.name == "CXX_BASE_SPECIFIER":
            yield from _fields(child.type.get_canonical(), depth - 1, path)


def _root(tree: HostTree, node: int) -> str | None:
    """The variable a written expression starts at (``mesh`` in ``&mesh``, ``pm`` in
    ``*pm`` and in ``pm->d``); None for any other (``a[i]``, ``get()``, ``this``)."""
    return variable_below(tree, node, _TOWARDS_ROOT)


def variable_below(tree: HostTree, node: int, through: frozenset[str]) -> str | None:
    """The variable or parameter that ``node`` reaches down its first children through the
    node kinds ``through``; None when the chain ends at anything else."""
    k = node
    while tree.kinds[k] in through and tree.children[k]:
        k = tree.children[k][0]
    if tree.kinds[k] != "DECL_REF_EXPR":
        return None
    ref = tree.nodes[k].cursor.referenced
    return None if ref is None or ref.kind.name not in ("VAR_DECL", "PARM_DECL") else ref.spelling
