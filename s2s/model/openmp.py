"""OpenMP directives as written: kind words, parsed clauses, and the statement they govern."""

from __future__ import annotations

from dataclasses import dataclass

from s2s.model.span import Expr, SourceSpan

#: Directive kinds (first words) that start a target region executed on the device.
TARGET_EXECUTABLE = ("target",)
#: Stand-alone directives: they have no associated statement.
STANDALONE = (
    ("target", "update"),
    ("target", "enter", "data"),
    ("target", "exit", "data"),
    ("barrier",),
    ("taskwait",),
    ("taskyield",),
    ("flush",),
    ("cancellation", "point"),
    ("cancel",),
)
#: Declarative directives: they apply to declarations, not to one statement.
DECLARATIVE = (
    ("declare", "target"),
    ("end", "declare", "target"),
    ("begin", "declare", "target"),
    ("declare", "reduction"),
    ("declare", "mapper"),
    ("declare", "simd"),
    ("declare", "variant"),
    ("threadprivate",),
    ("requires",),
)


@dataclass(frozen=True, slots=True)
class ArraySection:
    """One ``[lower:length]`` (or ``[index]``) subscript of a list item.

    ``lower``/``length`` are None when omitted (``a[:n]`` has no lower, ``a[1:]`` no length).
    ``is_section`` is False for a plain subscript ``[i]``.
    """

    lower: Expr | None
    length: Expr | None
    is_section: bool
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class ListItem:
    """A variable-list item such as ``a``, ``a[0:n]``, ``s.x[1:m]`` or ``p->v[:n]``.

    ``base`` is the item without its subscripts (``s.x``), ``root`` the first variable (``s``).
    """

    text: str
    base: str
    root: str
    sections: tuple[ArraySection, ...]
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class OmpClause:
    """A clause: its name, modifiers before a ``:`` and the list items (or raw argument)."""

    name: str
    span: SourceSpan
    modifiers: tuple[str, ...] = ()
    items: tuple[ListItem, ...] = ()
    argument: Expr | None = None


@dataclass(frozen=True, slots=True)
class MapClause:
    """A ``map``, ``to`` or ``from`` clause.

    ``map_type`` is ``to``, ``from``, ``tofrom``, ``alloc``, ``release`` or ``delete``; for a
    ``map`` clause without a type it is ``tofrom`` with ``implicit_type`` set. For the
    ``target update`` motion clauses ``to(...)``/``from(...)`` it is that motion.
    ``modifiers`` holds ``always``, ``close``, ``present``, ``mapper(id)`` and ``iterator(...)``.
    """

    clause: str
    map_type: str
    modifiers: tuple[str, ...]
    items: tuple[ListItem, ...]
    span: SourceSpan
    implicit_type: bool = False


@dataclass(frozen=True, slots=True)
class OmpDirective:
    """An ``#pragma omp`` directive.

    ``words`` are the directive-name words (``('target', 'teams', 'distribute', 'parallel',
    'for')``); ``span`` covers the whole pragma including continuation lines; ``stmt_span``
    the associated statement (None for stand-alone and declarative directives); ``parent``
    indexes the innermost enclosing directive of the same translation unit whose associated
    statement contains this one; ``function`` is the enclosing function.
    """

    words: tuple[str, ...]
    span: SourceSpan
    clauses: tuple[OmpClause, ...]
    maps: tuple[MapClause, ...]
    stmt_span: SourceSpan | None
    function: str | None
    parent: int | None = None

    @property
    def name(self) -> str:
        return " ".join(self.words)

    @property
    def is_target_region(self) -> bool:
        """A directive whose body runs on the device (target, target teams ..., target parallel ...)."""
        return self.words[0] == "target" and (len(self.words) == 1 or self.words[1] not in {
            "data", "enter", "exit", "update"})

    @property
    def is_target_data(self) -> bool:
        return self.words[:2] == ("target", "data")

    @property
    def is_standalone(self) -> bool:
        return any(self.words[: len(k)] == k for k in STANDALONE)

    @property
    def is_declarative(self) -> bool:
        return any(self.words[: len(k)] == k for k in DECLARATIVE)

    def clause(self, name: str) -> tuple[OmpClause, ...]:
        return tuple(c for c in self.clauses if c.name == name)


@dataclass(frozen=True, slots=True)
class MacroDirective:
    """A use of a macro that expands to an OpenMP directive through ``_Pragma`` (PRK's
    ``OMP_TARGET(teams distribute ...)``): s2s neither analyses nor rewrites it, so it is kept
    to be counted. ``is_target`` says the directive is a target construct that runs a kernel
    (not ``target data``/``update``/``enter``/``exit``): its pointers keep whatever mapping the
    macro's text gives."""

    span: SourceSpan
    macro: str
    is_target: bool
