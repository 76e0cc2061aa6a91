"""A small frozen expression/statement IR of CUDA kernel and ``__device__`` function bodies.

Access analysis needs the *meaning* of index expressions (``blockIdx.x * blockDim.x +
threadIdx.x``, guards, loops), not their text. The front end (``s2s/frontend/cuda/kernel_body.py``)
lowers libclang cursors to these nodes once; analyses interpret them without libclang.
The IR is deliberately small: integer arithmetic, comparisons, assignments, subscripts,
calls, structured control flow. Anything else becomes :class:`Opaque` (its sub-expressions are
kept, so accesses inside are still seen) and the analysis treats its value as unknown.

Constants folded by clang (macros such as ``TILE``, ``sizeof``, enumerators, ``constexpr``)
arrive as :class:`IntConst`. Implicit conversions and parentheses are dropped; explicit casts
stay (:class:`Cast`) because a cast to ``float`` ends integer reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from s2s.model.span import SourceSpan

# --- expressions ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IntConst:
    value: int


@dataclass(frozen=True, slots=True)
class FloatConst:
    value: float


@dataclass(frozen=True, slots=True)
class Var:
    """A named local variable or parameter (or a template parameter, unknown here).

    ``global_array``: the name is an array variable declared at file or namespace scope (a
    ``__constant__`` or ``__device__`` table): its elements are its own storage, never a
    parameter's buffer."""

    name: str
    global_array: bool = False


@dataclass(frozen=True, slots=True)
class Builtin:
    """``threadIdx.x`` -> ``Builtin('threadIdx', 'x')``; ``warpSize`` has component ''."""

    var: str
    component: str


@dataclass(frozen=True, slots=True)
class Unary:
    """``op`` is one of ``- + ! ~ * &`` or ``pre++ pre-- post++ post--``."""

    op: str
    operand: object


@dataclass(frozen=True, slots=True)
class Binary:
    """Arithmetic, bitwise, comparison and logical operators (C spelling: ``+``, ``<=``, ``&&``)."""

    op: str
    lhs: object
    rhs: object


@dataclass(frozen=True, slots=True)
class Assign:
    """``target op value`` with ``op`` ``=`` or a compound ``+=``, ``>>=`` ... (an expression in C)."""

    op: str
    target: object
    value: object


@dataclass(frozen=True, slots=True)
class Cond:
    cond: object
    then: object
    other: object


@dataclass(frozen=True, slots=True)
class Index:
    """``base[index]``; the span locates the access for reports."""

    base: object
    index: object
    span: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Member:
    """``base.name`` or ``base->name`` (``arrow``). ``kind`` is the member's own type kind as
    in :class:`Decl` (``pointer`` for ``GSD.samples`` of a struct holding ``double
    *samples``; '' where unknown), with ``elem_size`` and ``const`` of its pointee as for a
    pointer :class:`IrParam`: a by-value struct parameter's pointer members are buffers the
    analyses can follow (:mod:`s2s.analysis.kernel.members`)."""

    base: object
    name: str
    arrow: bool
    kind: str = ""
    elem_size: int | None = None
    const: bool = False


@dataclass(frozen=True, slots=True)
class Call:
    """A call by name; ``device`` is True for a user ``__device__`` function (inlined)."""

    name: str
    args: tuple
    device: bool = False
    span: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Cast:
    """An explicit cast; ``kind`` is ``int``, ``float``, ``pointer`` or ``other``;
    ``elem_size`` is the pointee size in bytes for pointer casts (None if unknown)."""

    kind: str
    operand: object
    elem_size: int | None = None


@dataclass(frozen=True, slots=True)
class Opaque:
    """A construct the IR does not model; its value is unknown, its children are evaluated."""

    text: str
    children: tuple = ()
    span: SourceSpan | None = field(default=None, compare=False)


# --- statements -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decl:
    """One declared variable. ``kind``: ``int``, ``float``, ``pointer``, ``array`` (a local or
    ``__shared__`` array: storage of its own), ``other`` (structs, vectors)."""

    name: str
    kind: str
    init: object | None = None
    elem_size: int | None = None
    span: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ExprStmt:
    expr: object


@dataclass(frozen=True, slots=True)
class Block:
    stmts: tuple


@dataclass(frozen=True, slots=True)
class If:
    cond: object
    then: object
    other: object | None = None


@dataclass(frozen=True, slots=True)
class For:
    """``for (init; cond; step) body``; missing parts are None (``init`` a statement)."""

    init: object | None
    cond: object | None
    step: object | None
    body: object


@dataclass(frozen=True, slots=True)
class While:
    """``while (cond) body``, or ``do body while (cond)`` when ``do_while``."""

    cond: object
    body: object
    do_while: bool = False


@dataclass(frozen=True, slots=True)
class Return:
    value: object | None = None


@dataclass(frozen=True, slots=True)
class Break:
    pass


@dataclass(frozen=True, slots=True)
class Continue:
    pass


@dataclass(frozen=True, slots=True)
class OpaqueStmt:
    """A statement not modelled (``switch``, ``goto``, inline asm); children are kept."""

    text: str
    children: tuple = ()
    span: SourceSpan | None = field(default=None, compare=False)


# --- functions --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IrParam:
    """A parameter: ``kind`` as in :class:`Decl`; for pointers ``elem_size`` (bytes of the
    pointee) and ``const`` (pointer to const: never written)."""

    name: str
    kind: str
    elem_size: int | None = None
    const: bool = False


@dataclass(frozen=True, slots=True)
class KernelBody:
    """The lowered body of a ``__global__`` (``is_global``) or ``__device__`` function."""

    name: str
    is_global: bool
    params: tuple[IrParam, ...]
    body: Block
    span: SourceSpan
    template_params: tuple[str, ...] = ()

    def param(self, name: str) -> IrParam | None:
        for param in self.params:
            if param.name == name:
                return param
        return None

    @property
    def pointer_params(self) -> tuple[IrParam, ...]:
        return tuple(p for p in self.params if p.kind == "pointer")
