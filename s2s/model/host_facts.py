"""Facts about host variables, from the libclang AST (issue 19, item 1).

Every mention of a variable in a host function is a :class:`VarUse` with its role in the
expression around it, so that analyses (transfers, fuse, mgpu) ask "is ``d_a`` assigned
here, is its address taken, does it only appear as a subscript base" instead of searching
statement text for a name: ``block.x`` is a member, not the variable ``x``; ``float *a = f(),
*b = g();`` declares both ``a`` and ``b``; ``if ((p = malloc(n)) == 0)`` assigns ``p``.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.model.span import Expr, SourceSpan

#: Roles of a mention, from the expression it sits in (casts and parentheses looked through):
#: ``declare`` a declarator without initializer; ``null-init`` one initialised to 0 / NULL /
#: nullptr; ``init`` one with another initializer; ``assign`` the left side of ``=`` or of a
#: compound assignment, or the operand of ``++``/``--``; ``address`` the operand of ``&``;
#: ``subscript`` the base of ``v[...]``; ``deref`` the operand of unary ``*``; ``member`` the
#: base of ``v.f`` / ``v->f``; ``argument`` a whole call argument; ``null-test`` compared with
#: a null constant, negated, or the whole condition of ``if``/``while``/``?:``/``&&``/``||``;
#: ``delete`` the operand of ``delete`` / ``delete[]``; ``read`` any other use of the value
#: (copied, added to, returned).
ROLES = ("declare", "null-init", "init", "assign", "address", "subscript", "deref", "member",
         "argument", "null-test", "delete", "read")
#: the roles of a mention that may give the variable a value (of these only ``init`` and a
#: plain ``=`` record it in ``VarUse.value``; ``address`` lets a callee give one)
VALUE_ROLES = frozenset({"init", "null-init", "assign", "address"})
#: the roles of a mention that declares the variable
DECLARING_ROLES = frozenset({"declare", "null-init", "init"})
#: the roles of a mention after the declaration that may change its value (an assignment,
#: a step; the address handed on)
CHANGING_ROLES = frozenset({"assign", "address"})


@dataclass(frozen=True, slots=True)
class VarUse:
    """One mention of a variable (or a declarator) in a host function.

    ``decl`` is the byte offset of the variable's declaration (two variables of one name in
    different scopes differ there; parameters and globals have theirs too). ``call`` and
    ``position`` name the innermost call argument the mention is in (callee, index; None
    outside calls): ``&d`` in ``cudaMalloc(&d, n)`` has ``address`` at (cudaMalloc, 0).
    ``pointer`` says whether the variable has pointer or array type.

    The rest answers what OpenMP's analyses asked the text before (issue 28): ``local``, the
    variable is a parameter or a local of this function (not a global); ``value``, the value
    it gets at an ``init`` declarator or a plain ``=`` assignment (None for compound
    assignments, ``++``/``--`` and every other role); ``element``, for a ``subscript``
    mention, the role of the element ``v[k]`` itself by the same rules (``&y[k]`` is
    ``address``, ``y[k][i]`` is ``subscript``, ``y[k] = malloc(...)`` is ``assign``);
    ``unevaluated``, the mention sits in ``sizeof``/``alignof`` (it reads no value).
    ``record``, for a declarator, its type with pointers and arrays taken off is a struct,
    class or union (``Mesh m = *mp;`` holds the caller's pointers; ``double *p`` does not).
    ``field``, for a ``member`` mention, the name of the member it reaches (``f`` in ``v.f``
    and ``v->f``; whether through ``.`` or ``->`` follows from ``pointer``). ``integer``,
    for a declarator, its type is an integer type (``int``, ``size_t``, ``int64_t``; not
    ``char``, ``bool`` or an enum): a count or an index a later expression may be spelled in.
    ``decl`` is an offset in the mention's own file: a program (``s2s.model.program``) moves
    spans, not these offsets.
    """

    name: str
    role: str
    span: SourceSpan
    function: str
    decl: int
    pointer: bool = False
    call: str | None = None
    position: int | None = None
    local: bool = False
    value: Expr | None = None
    element: str | None = None
    unevaluated: bool = False
    record: bool = False
    field: str | None = None
    integer: bool = False
    #: an ``assign`` mention whose value is a null pointer constant (``d = 0;``, ``d = NULL;``)
    null: bool = False
    #: a mention inside a macro call's argument that the macro forwards plainly (expanded
    #: once, not stringized or pasted): the byte offsets where it is written in the call
    #: (its ``span`` is the whole call's); None elsewhere
    spelled: tuple[int, int] | None = None
    #: for an ``init`` or ``assign`` mention of an integer variable, its value with the
    #: integral casts taken off, rendered from the AST (``(std::size_t)w * h`` -> ``(w) *
    #: h``; :mod:`s2s.frontend.host.integral`); None where the value holds anything else
    integral: str | None = None
    #: a ``read`` of an integer variable that an ``if``'s condition compares, through
    #: ``&&`` only, with an integer bound (``if (i < total && ok)``): (operator with the
    #: variable on its left, the bound rendered from the AST as ``integral`` is), which holds
    #: throughout the ``if``'s then-branch while the variable is not written; None elsewhere
    guard: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class HostArg:
    """One argument of a CUDA API call, a malloc-family call or a kernel launch in a host
    function, lowered to the kernel IR (:mod:`s2s.model.kernel_ir`; integer constants,
    ``sizeof`` and numeric macros folded by clang). ``call`` and ``position`` name it as
    :class:`VarUse` does (a launch's arguments after the ``<<<...>>>``; inside a macro every
    extent is the macro call's, so these tell arguments apart where spans cannot). Analyses
    compare and evaluate sizes on this tree instead of the argument's text."""

    call: str
    position: int
    span: SourceSpan
    function: str
    value: object


@dataclass(frozen=True, slots=True)
class HostDecl:
    """A host local of integer, floating or ``dim3`` type declared with a value, the value
    lowered to the kernel IR (for ``dim3 g(a, b)`` an ``Opaque('construct', (a, b))``).
    ``statement`` is the byte offset where its declaration statement starts. ``init`` is the
    initializer's extent (``dim3 g(a, b)``: the constructor's, from the name ``g``) and
    ``type`` the declared type's spelling: what lets a wrapper's local be replaced by its
    value where the wrapper is inlined (:mod:`s2s.transform.fuse_wrappers`)."""

    name: str
    kind: str
    span: SourceSpan
    function: str
    statement: int
    value: object
    init: SourceSpan | None = None
    type: str = ""


@dataclass(frozen=True, slots=True)
class MemberWrite:
    """A write of a struct or class member in a host function (issue 28): ``x.f = e``,
    ``p->f += e``, ``++x.f``, ``x.f--``, ``&x.f`` (the address handed on, a write as far as
    anyone can tell), and ``f = e`` in a method (``this->f``). ``member`` is the field's name,
    ``role`` ``assign`` (the left side of ``=``, of a compound assignment or of an assigning
    operator call, or the operand of ``++``/``--``) or ``address``; ``span`` the member
    expression, ``extent`` the writing expression around it (the assignment, the ``&``);
    ``base`` the variable the access starts at (``x`` in ``x.f``, ``p`` in ``p->f``; None
    for any other base: ``a[i].f``, ``get()->f``, ``this``); ``value`` the right side of a
    plain ``=``. Extracted for every host function of a C or C++ file (a write in a function
    nobody asks about still changes the member), so that OpenMP's member counts ask "is
    ``length_concs`` written outside the functions that allocate ``concs``" of the AST, not
    of the text (``.f[i] = `` writes an element, not the member; a macro's expansion writes
    where it is used, not where it is defined)."""

    member: str
    role: str
    span: SourceSpan
    function: str
    extent: SourceSpan
    base: str | None = None
    value: Expr | None = None
    #: the write gives the whole struct a value (``mesh = other``, ``memcpy(&mesh, ...)``):
    #: ``span`` is the struct's expression, and every member of it is written
    #: (:mod:`s2s.frontend.host.struct_writes`)
    whole: bool = False
    #: for a whole struct assigned a call's result (``SD = binary_read(in)``), the function
    #: called: the members are then that function's (checked where it is defined)
    made_by: str | None = None
    #: for a struct whose address is given to a function the file only declares (an outside
    #: library's ``grid_load(&g, f)``), that function; the program drops the write where one
    #: of its files defines it (:func:`s2s.model.program.merge`)
    through: str | None = None
