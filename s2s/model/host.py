"""Host-side structure: allocations and functions with their loops, branches and calls.

Statements form a small structured tree (not a CFG): later passes build their control-flow
graphs from it, and every node keeps its span so edits can land before or around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from s2s.model.cuda import Param
from s2s.model.span import Expr, SourceSpan


@dataclass(frozen=True, slots=True)
class HostAllocation:
    """Storage for an array on the host.

    ``kind`` is ``malloc``, ``calloc``, ``realloc``, ``new[]``, ``static_array`` (a fixed-size
    array, global or local), ``vla`` or ``helper`` (the value of a function that allocates
    the array and may fill it, :class:`AllocatingHelper`). ``count`` is the number of elements when it can be
    read off the source (``n`` in ``malloc(n * sizeof(double))``); ``size_bytes`` is the
    byte-size expression as written, for the malloc family.
    """

    name: str
    kind: str
    element_type: str
    span: SourceSpan
    function: str | None
    count: Expr | None = None
    size_bytes: Expr | None = None
    dims: tuple[Expr, ...] = ()
    #: ``new T[n]`` only: it has an initializer (``()``, ``{...}``), so its elements start
    #: defined (without one, as after ``malloc``, they hold nothing to copy)
    initialised: bool = False
    #: fixed-size arrays: each dimension's element count as the type gives it (``double
    #: *y[NS]`` with ``#define NS 4``: ``(4,)``; None for a variable dimension)
    extents: tuple[int | None, ...] = ()


_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_SIMPLE = re.compile(r"[A-Za-z_]\w*|\d+[uUlL]*")


@dataclass(frozen=True, slots=True)
class AllocatingHelper:
    """A function whose value is a fresh array of ``count`` elements (``count`` written in
    its parameters and globals): ``float *make(int n) { float *p = malloc(n * sizeof *p);
    if (!p) exit(1); ...; return p; }``. A call's allocation is the summary instantiated
    with the call's arguments, also where the call is in another file of the program."""

    name: str
    params: tuple[str, ...]
    count: str
    element_type: str
    kind: str

    def at_call(self, args: tuple[str, ...], target: str, span: SourceSpan,
                function: str | None, elements: tuple[str | None, ...] = ()
                ) -> HostAllocation | None:
        """The allocation a call with ``args`` makes for ``target`` (None: arity differs).
        A helper returning ``void *`` (``element_type`` 'void') counts bytes: the count is
        then the call's ``elements`` entry for the byte-size parameter (None: not known)."""
        if len(args) != len(self.params):
            return None
        if self.element_type == "void":
            where = self.params.index(self.count) if self.count in self.params else None
            count = elements[where] if where is not None and where < len(elements) else None
            return None if count is None else HostAllocation(
                target, self.kind, "void", span, function, Expr(count, span), None)
        binding = {p: a if _SIMPLE.fullmatch(a.strip()) else f"({a})"
                   for p, a in zip(self.params, args, strict=True)}
        count = _NAME.sub(lambda m: binding.get(m.group(0), m.group(0)), self.count)
        return HostAllocation(target, self.kind, self.element_type, span, function,
                              Expr(count, span), None)


@dataclass(frozen=True, slots=True)
class HelperCall:
    """A host call to a function the file declares but does not define, whose value
    initializes or is assigned to ``target``: an allocation once the program holds the
    definition and it is an :class:`AllocatingHelper`."""

    callee: str
    args: tuple[str, ...]
    target: str
    span: SourceSpan
    function: str | None
    #: per argument, the count of ``target``'s elements it measures when it is a byte size
    #: (``n * sizeof(double)``, or a local ``bytes`` holding one): what a helper that counts
    #: bytes (``void *xmalloc(size_t bytes)``) allocates for this call; None where it is not
    elements: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call in host code to any function (user, library or CUDA API)."""

    name: str
    args: tuple[Expr, ...]
    span: SourceSpan
    #: a call through a local function pointer that may hold any of these functions of the
    #: file and nothing else (frontend.host.callees); ``name`` is then the pointer's
    targets: tuple[str, ...] = ()
    #: the callee is declared never to return (``__attribute__((noreturn))``, ``_Noreturn``,
    #: ``[[noreturn]]`` on a declaration the call sees: ``exit``, a header's ``fatal``);
    #: left out of the JSON form
    noreturn: bool = field(default=False, metadata={"json": False})
    #: the function called is declared in a system header (or in s2s's own parse headers): a
    #: library's, which cannot name a variable of the program (from the AST: where the
    #: callee's declaration is). False for every function of the program, also one whose body
    #: is in another translation unit (``extern`` globals are in reach of such a body)
    system: bool = False
    #: the call may be skipped while its statement's expression runs: it is in the right
    #: operand of ``&&``/``||`` or a branch of ``?:`` (from the AST; ``fprintf(...), exit(1)``
    #: runs both); left out of the JSON form
    conditional: bool = field(default=False, metadata={"json": False})


@dataclass(frozen=True, slots=True)
class Comparison:
    """``left op right`` (``op`` one of ``<``, ``<=``, ``>``, ``>=``), read from the AST's
    binary operator: the operands' texts as written, parentheses around the comparison
    itself removed (``(16 > k)``)."""

    left: str
    op: str
    right: str


@dataclass(frozen=True, slots=True)
class LoopHeader:
    """The header of a counting ``for`` loop as the AST has it: ``counter`` set to ``first``
    (a declaration with one declarator, or an assignment), tested ``counter op bound`` (``op``
    ``<`` or ``<=``, the counter on the left), stepped by ``++``/``+= step`` (a positive
    integer literal)."""

    counter: str
    first: str
    op: str
    bound: str
    step: int


@dataclass(frozen=True, slots=True)
class Stmt:
    """A statement node.

    ``kind`` is one of ``block``, ``for``, ``while``, ``do``, ``range_for``, ``if``,
    ``switch``, ``case``, ``default``, ``break``, ``continue``, ``return``, ``goto``, ``label``,
    ``decl``, ``expr``, ``null`` or ``other``. ``cond`` is the loop or branch condition,
    ``init``/``step`` the for-loop header parts, ``body`` the loop body or then-branch,
    ``orelse`` the else-branch, ``children`` the statements of a block (or a case's statement),
    ``label`` a goto target or label name. ``directive`` indexes the OpenMP directive whose
    associated statement this is, if any. ``calls`` are the calls made directly by this
    statement's own expressions (not by nested statements). ``header``: a counting ``for``
    loop's header (:class:`LoopHeader`, None for any other loop); ``tests``: the operands of
    an ``if`` condition's top-level ``||`` that are comparisons (each is false past the
    ``if`` when its branch leaves); ``forever``: a loop only a jump leaves.
    """

    kind: str
    span: SourceSpan
    cond: Expr | None = None
    init: Stmt | None = None
    step: Expr | None = None
    body: Stmt | None = None
    orelse: Stmt | None = None
    children: tuple[Stmt, ...] = ()
    label: str | None = None
    calls: tuple[CallSite, ...] = ()
    directive: int | None = None
    header: LoopHeader | None = None
    tests: tuple[Comparison, ...] = ()
    #: a ``for``/``while``/``do`` loop whose condition is absent or a true literal
    #: (``for (;;)``, ``while (1)``, ``while (true)``): only a jump leaves it; left out of the
    #: JSON form
    forever: bool = field(default=False, metadata={"json": False})

    def walk(self):
        """Yield this statement and every nested one, in source order.

        An explicit stack, not ``yield from`` recursion: each level of nested generators
        costs every yielded statement one more resume, quadratic in the nesting depth.
        """
        pending = [self]
        while pending:
            stmt = pending.pop()
            yield stmt
            pending.extend(reversed(stmt.children))
            pending.extend(part for part in (stmt.orelse, stmt.body, stmt.init) if part is not None)


@dataclass(frozen=True, slots=True)
class HostFunction:
    """A function with a body, compiled for the host (or a kernel's host-visible definition)."""

    name: str
    span: SourceSpan
    return_type: str
    params: tuple[Param, ...]
    body: Stmt | None
    is_template: bool = False
    is_static: bool = False
    #: the class whose member function this is (None: a free function); its data members
    #: are named here without ``this->``
    member_of: str | None = None
    #: for a member function, the data members of its class and of the classes it derives
    #: from (named bare in its body: in scope wherever a clause of it goes)
    fields: tuple[str, ...] = ()

    @property
    def calls(self) -> tuple[CallSite, ...]:
        if self.body is None:
            return ()
        return tuple(call for stmt in self.body.walk() for call in stmt.calls)

    @property
    def loops(self) -> tuple[Stmt, ...]:
        if self.body is None:
            return ()
        kinds = {"for", "while", "do", "range_for"}
        return tuple(s for s in self.body.walk() if s.kind in kinds)

    @property
    def branches(self) -> tuple[Stmt, ...]:
        if self.body is None:
            return ()
        return tuple(s for s in self.body.walk() if s.kind in {"if", "switch"})


@dataclass(frozen=True, slots=True)
class ClassFact:
    """One fact about a C++ class of the project that decides whether the storage of its
    ``std::vector`` members may stay mapped on the device over each object's lifetime
    (omp.lifetime). ``kind``:

    * ``definition``: the class body (``span``; its closing brace is the last byte);
      ``names`` are its public data members, ``indent`` its members' indentation;
    * ``copy``: an object of the class is copied or moved here (a construction from another
      object, or an assignment): the copy's vectors are new storage nobody maps;
    * ``derived``: a class derives from it here (its methods may touch the members too);
    * ``friend``: the class befriends a function or class (which may touch them);
    * ``static``: an object with static storage is defined here (constructed before
      ``main``, destroyed after it: the offload runtime may not be up then);
    * ``delegating``: the constructor at ``span`` delegates to another one (which enters).
    """

    class_name: str
    kind: str
    span: SourceSpan
    names: tuple[str, ...] = ()
    indent: str = ""


@dataclass(frozen=True, slots=True)
class FunctionRef:
    """A mention of a function of the file other than as the callee of a direct call, nor
    as the initializer of a local pointer that is only ever called (frontend.host.callees): its
    address is taken. ``call``/``arg_index`` when it is an argument of a call (``bench(20,
    scal, ...)``): a wrapper the analysis follows, or a library call it does not."""

    name: str
    span: SourceSpan
    call: str | None = None
    arg_index: int | None = None
