"""Host variable facts from the libclang AST: every mention of a variable in a host function
with its role (:class:`s2s.model.host_facts.VarUse`).

A mention is a ``DECL_REF_EXPR`` whose referenced cursor is a variable or parameter, or a
local ``VAR_DECL`` (every declarator of a declaration is its own cursor). Its role comes from
the nearest enclosing expression that is not a cast or parentheses: the operator of a unary
or binary operator (libclang's operator kinds, so this works inside macro arguments too,
where every extent is the macro call's), the operand position of a subscript, member access
or call, or the condition of a branch. Member names are never variables (``block.x``
mentions ``block``), and an assignment inside a condition (``if ((p = malloc(n)) == 0)``)
is an assignment like any other. Each mention also records the call argument it sits in
(innermost call, argument index; kernel launches count their arguments after the
``<<<...>>>``), so ``CHECK(cudaMalloc((void **)&d, n * sizeof(float)))`` is read right even
though the macro gives every node one extent.
"""

from __future__ import annotations

import re

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.cuda.text import Macros, offsets_of
from s2s.frontend.host.integral import INTEGER_KINDS, integral_text
from s2s.frontend.host.tree import (
    ARRAY_TYPE_KINDS,
    LAUNCH_CONFIG,
    HostTree,
    cuda_role,
    host_tree,
    is_host_code,
    unary_kind,
)
from s2s.model.host_facts import HostArg, HostDecl, VarUse

#: Expressions looked through when finding a mention's role.
THROUGH = frozenset({"UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                     "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR"})
ASSIGNMENTS = frozenset({"Assign", "MulAssign", "DivAssign", "RemAssign", "AddAssign", "SubAssign",
                         "ShlAssign", "ShrAssign", "AndAssign", "XorAssign", "OrAssign"})
CONDITIONS = frozenset({"IF_STMT", "WHILE_STMT", "DO_STMT", "CONDITIONAL_OPERATOR"})
NULL_KINDS = frozenset({"GNU_NULL_EXPR", "CXX_NULL_PTR_LITERAL_EXPR"})
VARIABLE_KINDS = frozenset({"VAR_DECL", "PARM_DECL"})
#: CXUnaryOperatorKind (clang-c/Index.h) -> role of the operand
UNARY_ROLES = {1: "assign", 2: "assign", 3: "assign", 4: "assign", 5: "address", 6: "deref",
               10: "null-test"}
#: where the search for the call argument holding a mention stops
STATEMENT_KINDS = FUNCTION_KINDS | {"COMPOUND_STMT", "DECL_STMT", "LAMBDA_EXPR"}


def extract_var_uses(ctx: ExtractContext, functions: frozenset[str] | None = None
                     ) -> tuple[VarUse, ...]:
    """Every variable mention and local declarator in the file's host functions, in order;
    with ``functions``, in the host functions of those names only (a mention costs a span
    and a referenced cursor: OpenMP files take only the functions their analyses ask about,
    :func:`s2s.frontend.extract.var_use_functions`)."""
    tree = host_tree(ctx)
    out: list[VarUse] = []
    i, count = 0, len(tree.nodes)
    while i < count:
        node = tree.nodes[i]
        if tree.kinds[i] in FUNCTION_KINDS and (functions is None or
                                                node.cursor.spelling in functions) \
                and is_host_code(cuda_role(node.cursor)):
            _uses_in(tree, i, node.cursor.spelling, out)
            i = tree.end[i]
        else:
            i += 1
    return tuple(out)


def _uses_in(tree: HostTree, f: int, function: str, out: list[VarUse]) -> None:
    variables: dict[int, tuple | None] = {}   # cursor hash -> (name, decl offset, pointer)
    for i in range(f + 1, tree.end[f]):
        kind = tree.kinds[i]
        if kind == "DECL_REF_EXPR":
            ref = tree.nodes[i].cursor.referenced
            if ref is None:
                continue
            key = ref.hash
            if key not in variables:
                variables[key] = (ref.spelling, ref.location.offset, _is_pointer(ref),
                                  _is_local(ref)) if ref.kind.name in VARIABLE_KINDS else None
            variable = variables[key]
            if variable is None:
                continue
            call, position = _enclosing_argument(tree, i)
            role = _role(tree, i)
            value = _assigned_node(tree, i) if role == "assign" else None
            span = tree.span(i)
            integral = integral_text(tree, value) if value is not None and \
                _is_integer(ref) else None
            guard = _if_guard(tree, i) if role == "read" and _is_integer(ref) else None
            out.append(VarUse(variable[0], role, span, function, variable[1],
                              variable[2], call, position, local=variable[3],
                              value=None if value is None else tree.expr(value),
                              element=_element_role(tree, i) if role == "subscript"
                              else None, unevaluated=_unevaluated(tree, i),
                              field=_member_name(tree, i) if role == "member" else None,
                              null=value is not None and _is_null(tree, value),
                              spelled=None if span.macro is None else
                              _spelled(tree, i, span, variable[0]), integral=integral,
                              guard=guard))
        elif kind == "VAR_DECL":
            cursor = tree.nodes[i].cursor
            at = cursor.location.offset
            span = tree.ctx.index.span(at, at + len(cursor.spelling.encode()), tree.templates[i])
            init = _initializer(tree, i)
            role = "declare" if init is None else "null-init" if _is_null(tree, init) else "init"
            integer = _is_integer(cursor)
            out.append(VarUse(cursor.spelling, role, span, function, at, _is_pointer(cursor),
                              local=True, value=None if init is None else tree.expr(init),
                              record=_is_record(cursor), integer=integer,
                              integral=integral_text(tree, init) if integer and init is not None
                              else None))


#: a relational operator as libclang names it -> its C spelling, and the spelling with the
#: operands swapped (``n > i`` is ``i < n``)
_RELATIONS = {"LT": ("<", ">"), "LE": ("<=", ">="), "GT": (">", "<"), "GE": (">=", "<=")}


def _if_guard(tree: HostTree, i: int) -> tuple[str, str] | None:
    """(operator, bound) when the mention ``i`` is one side of a relational operator whose
    other side is an integer expression (:func:`integral_text`) and the comparison is the
    condition of an ``if``, alone or as an operand of ``&&`` (parentheses and casts looked
    through): inside the then-branch the comparison holds (``VarUse.guard``)."""
    j, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in THROUGH:
        j, p = p, tree.parent[p]
    if p < 0 or tree.kinds[p] != "BINARY_OPERATOR" or len(tree.children[p]) != 2:
        return None
    spelled = _RELATIONS.get(tree.nodes[p].cursor.binary_operator.name)
    if spelled is None:
        return None
    left, right = tree.children[p]
    bound = integral_text(tree, right if left == j else left)
    if bound is None:
        return None
    op = spelled[0] if left == j else spelled[1]
    j, p = p, tree.parent[p]
    while p >= 0 and (tree.kinds[p] in THROUGH or tree.kinds[p] == "BINARY_OPERATOR" and
                      tree.nodes[p].cursor.binary_operator.name == "LAnd"):
        j, p = p, tree.parent[p]
    if p < 0 or tree.kinds[p] != "IF_STMT" or tree.children[p][:1] != [j] or \
            len(tree.children[p]) not in (2, 3):
        return None
    return op, bound


def _spelled(tree: HostTree, i: int, span, name: str) -> tuple[int, int] | None:
    """Where the mention ``i``, inside the macro call at ``span``, is written in that call's
    argument (libclang's file location of the reference), when the macro forwards that
    argument plainly (:meth:`Macros.forwards_argument`); None otherwise."""
    start = offsets_of(tree.nodes[i].cursor, file_level=True)[0]
    end = start + len(name.encode())
    macros = tree.ctx.memo("cuda.macros", Macros)
    call = macros.call_at(span.start)
    if call is None or call.start != span.start or \
            not call.start + len(call.name) < start < end < call.end or \
            tree.ctx.source[start:end] != name.encode():
        return None
    return (start, end) if macros.forwards_argument(call, start) else None


def _is_local(cursor) -> bool:
    """Whether the variable ``cursor`` declares is a parameter or a local of a function
    (its declaration context is the function; a block is no declaration context)."""
    parent = cursor.semantic_parent
    return parent is not None and parent.kind.name in FUNCTION_KINDS | {"LAMBDA_EXPR"}


def _assigned_node(tree: HostTree, i: int) -> int | None:
    """The right side's node of the plain ``=`` whose left side is the mention ``i`` (casts
    and parentheses looked through), or None."""
    j, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in THROUGH:
        j, p = p, tree.parent[p]
    if p < 0 or tree.kinds[p] != "BINARY_OPERATOR":
        return None
    kids = tree.children[p]
    if len(kids) != 2 or kids[0] != j or tree.nodes[p].cursor.binary_operator.name != "Assign":
        return None
    return kids[1]


def _member_name(tree: HostTree, i: int) -> str:
    """The member that the member expression whose base is the mention ``i`` reaches."""
    p = tree.parent[i]
    while tree.kinds[p] in THROUGH:
        p = tree.parent[p]
    return tree.nodes[p].cursor.spelling


def _element_role(tree: HostTree, i: int) -> str:
    """The role of the subscript ``v[k]`` whose base is the mention ``i``."""
    p = tree.parent[i]
    while tree.kinds[p] in THROUGH:
        p = tree.parent[p]
    return _role(tree, p)


def _unevaluated(tree: HostTree, i: int) -> bool:
    """Whether the mention ``i`` is an operand of ``sizeof``/``alignof`` (libclang's
    ``CXX_UNARY_EXPR``), looked for up to the enclosing statement."""
    p = tree.parent[i]
    while p >= 0 and tree.kinds[p] not in STATEMENT_KINDS:
        if tree.kinds[p] == "CXX_UNARY_EXPR":
            return True
        p = tree.parent[p]
    return False


def _is_record(cursor) -> bool:
    """Whether the declared type, pointers, references and arrays taken off, is a struct,
    class or union (or a type clang cannot name: a dependent one)."""
    kind_type = cursor.type.get_canonical()
    for _ in range(16):
        kind = kind_type.kind.name
        if kind in ("POINTER", "LVALUEREFERENCE", "RVALUEREFERENCE"):
            kind_type = kind_type.get_pointee().get_canonical()
        elif kind in ARRAY_TYPE_KINDS:
            kind_type = kind_type.get_array_element_type().get_canonical()
        else:
            return kind not in BUILTIN_KINDS
    return True


#: canonical type kinds that hold no pointer of the caller's (the scalar built-ins, enums;
#: not ``void``: a ``void *`` local is what type-erased code keeps any array in)
BUILTIN_KINDS = frozenset({"BOOL", "CHAR_U", "UCHAR", "CHAR16", "CHAR32", "USHORT", "UINT",
                           "ULONG", "ULONGLONG", "UINT128", "CHAR_S", "SCHAR", "WCHAR", "SHORT",
                           "INT", "LONG", "LONGLONG", "INT128", "HALF", "FLOAT", "DOUBLE",
                           "LONGDOUBLE", "FLOAT128", "FLOAT16", "ENUM", "COMPLEX"})


def _is_integer(cursor) -> bool:
    return cursor.type.get_canonical().kind.name in INTEGER_KINDS


def _is_pointer(cursor) -> bool:
    kind = cursor.type.get_canonical().kind.name
    return kind == "POINTER" or kind in ARRAY_TYPE_KINDS


def _role(tree: HostTree, i: int) -> str:
    j, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in THROUGH:
        j, p = p, tree.parent[p]
    if p < 0:
        return "read"
    kind, kids = tree.kinds[p], tree.children[p]
    if kind == "UNARY_OPERATOR":
        return UNARY_ROLES.get(unary_kind(tree.nodes[p].cursor), "read")
    if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR"):
        op = tree.nodes[p].cursor.binary_operator.name
        if op in ASSIGNMENTS and kids and kids[0] == j:
            return "assign"
        if op in ("EQ", "NE") and len(kids) == 2 and _is_null(tree, kids[1] if kids[0] == j else kids[0]):
            return "null-test"
        return "null-test" if op in ("LAnd", "LOr") else "read"
    if kind == "ARRAY_SUBSCRIPT_EXPR":
        return "subscript" if kids and kids[0] == j else "read"
    if kind == "MEMBER_REF_EXPR":
        return "member"
    if kind == "CXX_DELETE_EXPR":
        return "delete"
    if kind == "CALL_EXPR":
        if kids and kids[0] == j:
            return "subscript" if _fixed_array_element(tree, p, i) else "read"
        return "argument"
    if kind in CONDITIONS and kids and kids[0] == j:
        return "null-test"
    return "read"


#: ``std::array`` (libstdc++, libc++) as clang spells its canonical type
_STD_ARRAY = re.compile(r"^(?:const\s+)?std::(?:__\w+::)?array<")


def _fixed_array_element(tree: HostTree, call: int, i: int) -> bool:
    """Whether the call ``call`` is ``a[k]`` on a ``std::array`` ``a`` (the mention ``i``): an
    element of a fixed-size array, as ``a[k]`` of a C array is (miniBUDE's ``std::array<float
    *, 6> poses``), not a call that may do anything with ``a``."""
    return tree.nodes[call].cursor.spelling == "operator[]" and \
        bool(_STD_ARRAY.match(tree.nodes[i].cursor.type.get_canonical().spelling))


def _enclosing_argument(tree: HostTree, i: int) -> tuple[str | None, int | None]:
    """(callee, argument index) of the innermost call argument holding node ``i``."""
    j, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] not in STATEMENT_KINDS:
        if tree.kinds[p] == "CALL_EXPR":
            kids = tree.children[p]
            if kids and kids[0] != j:
                args = [k for k in kids[1:] if not (tree.kinds[k] == "CALL_EXPR" and
                                                    tree.nodes[k].cursor.spelling == LAUNCH_CONFIG)]
                if j in args:
                    return tree.nodes[p].cursor.spelling, args.index(j)
        j, p = p, tree.parent[p]
    return None, None


def _is_null(tree: HostTree, k: int) -> bool:
    while tree.kinds[k] in THROUGH and tree.children[k]:
        k = tree.children[k][-1]
    if tree.kinds[k] in NULL_KINDS:
        return True
    if tree.kinds[k] == "INTEGER_LITERAL":
        start, end = tree.extent(k)
        return tree.ctx.source[start:end].strip() in (b"0", b"0L", b"0UL", b"0u")
    return False


def _declarator_role(tree: HostTree, i: int) -> str:
    """``declare``, ``null-init`` or ``init`` (:func:`_initializer`)."""
    init = _initializer(tree, i)
    if init is None:
        return "declare"
    return "null-init" if _is_null(tree, init) else "init"


def _initializer(tree: HostTree, i: int) -> int | None:
    """The node of the declarator ``i``'s initializer: the child expression after the ``=``
    that follows the declarator (array bounds are children too, inside ``[]``), or a
    constructor call / braced list; None without one."""
    src = tree.ctx.source
    cursor = tree.nodes[i].cursor
    prev = cursor.location.offset + len(cursor.spelling.encode())
    init = None
    for k in tree.children[i]:
        start, end = tree.extent(k)
        if start < prev:
            continue
        between = src[prev:start].strip()
        if between.endswith(b"=") or (not between and tree.kinds[k] in (
                "CALL_EXPR", "INIT_LIST_EXPR", "CXX_CONSTRUCT_EXPR")):
            init = k
        prev = end
    return init


#: calls whose arguments :func:`extract_host_args` lowers (besides ``cuda*`` and launches)
ALLOCATORS = frozenset({"malloc", "calloc", "realloc", "aligned_alloc", "memset", "memcpy"})


def extract_host_args(ctx: ExtractContext) -> tuple[HostArg, ...]:
    """The arguments of CUDA API calls, allocator calls and launches in host functions, lowered
    to the kernel IR (see :class:`~s2s.model.host_facts.HostArg`)."""
    from s2s.frontend.cuda.kernel_body import lowering

    tree = host_tree(ctx)
    out: list[HostArg] = []
    for function, j in _host_nodes(tree, "CALL_EXPR"):
        cursor = tree.nodes[j].cursor
        name = cursor.spelling
        kids = tree.children[j]
        launch = any(tree.kinds[k] == "CALL_EXPR" and tree.nodes[k].cursor.spelling == LAUNCH_CONFIG
                     for k in kids)
        if not (launch or name.startswith("cuda") or name in ALLOCATORS) or name == LAUNCH_CONFIG:
            continue
        lower = lowering(ctx, tree.templates[j])
        config = [k for k in kids[1:] if tree.kinds[k] == "CALL_EXPR" and
                  tree.nodes[k].cursor.spelling == LAUNCH_CONFIG]
        args = [k for k in kids[1:] if k not in config]
        for position, k in enumerate(args):
            out.append(HostArg(name, position, tree.span(k), function, lower.expr(tree.nodes[k].cursor)))
        for k in config:  # grid, block, shared bytes, stream (omitted ones have no extent)
            for position, c in enumerate(tree.children[k][1:]):
                start, end = tree.extent(c)
                if end > start:
                    out.append(HostArg(LAUNCH_CONFIG, position, tree.span(c), function,
                                       lower.expr(tree.nodes[c].cursor)))
    return tuple(out)


def _host_nodes(tree: HostTree, kind: str):
    """(host function name, node index) of every node of ``kind`` inside a host function."""
    i, count = 0, len(tree.nodes)
    while i < count:
        node = tree.nodes[i]
        if tree.kinds[i] in FUNCTION_KINDS and is_host_code(cuda_role(node.cursor)):
            for j in range(i + 1, tree.end[i]):
                if tree.kinds[j] == kind:
                    yield node.cursor.spelling, j
            i = tree.end[i]
        else:
            i += 1


#: host local types whose values :func:`extract_host_decls` records
DECL_KINDS = {"INT": "int", "UINT": "int", "LONG": "int", "ULONG": "int", "LONGLONG": "int",
              "ULONGLONG": "int", "SHORT": "int", "USHORT": "int", "FLOAT": "float", "DOUBLE": "float"}


def extract_host_decls(ctx: ExtractContext) -> tuple[HostDecl, ...]:
    """Locals of host functions declared with a value (integers, floats, ``dim3``), the value
    lowered to the kernel IR: what the fusion planner and replay evaluate sizes and launch
    shapes with (:func:`s2s.analysis.host_eval.evaluate_tree`)."""
    from s2s.frontend.cuda.kernel_body import lowering

    tree = host_tree(ctx)
    out: list[HostDecl] = []
    for function, j in _host_nodes(tree, "VAR_DECL"):
        found = _declared_value(tree, j)
        if found is None:
            continue
        kind, k = found
        value = tree.nodes[k].cursor
        p = tree.parent[j]
        statement = tree.extent(p)[0] if p >= 0 and tree.kinds[p] == "DECL_STMT" else tree.extent(j)[0]
        cursor = tree.nodes[j].cursor
        at = cursor.location.offset
        span = tree.ctx.index.span(at, at + len(cursor.spelling.encode()), tree.templates[j])
        out.append(HostDecl(cursor.spelling, kind, span, function, statement,
                            lowering(ctx, tree.templates[j]).expr(value), tree.span(k),
                            cursor.type.spelling))
    return tuple(out)


def _declared_value(tree: HostTree, j: int):
    """(kind, initializer node) of a scalar or ``dim3`` declarator with a value, or None."""
    cursor = tree.nodes[j].cursor
    canonical = cursor.type.get_canonical()
    kind = DECL_KINDS.get(canonical.kind.name)
    if kind is None and canonical.kind.name == "RECORD" and canonical.spelling.split("::")[-1] == "dim3":
        kind = "dim3"
    if kind is None:
        return None
    expressions = [k for k in tree.children[j] if tree.nodes[k].cursor.kind.is_expression()]
    if not expressions:
        return None
    # ``dim3 g(a, b)``: the constructor call's extent starts at the name, so it is no "init"
    if kind != "dim3" and _declarator_role(tree, j) != "init":
        return None
    return kind, expressions[-1]
