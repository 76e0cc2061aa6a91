"""Whether a section's variables may change inside the statements a data region spans.

A data region's map clause is evaluated where it opens, its updates later: both name the
same elements only while the variables and members a section is written in stay unchanged
(``map(alloc: a[0:n])`` at the entry and ``update from(a[0:n])`` after ``n = n - 100``
would name different elements). :func:`changing_term` answers from the AST's facts, not
from the statements' text:

* a variable changes when a mention of it in the region's statements assigns it, steps it,
  takes its address (``VarUse`` roles ``assign`` and ``address``; an address handed to a
  function that only reads members, ``Scope.read_only``, is none) or declares a variable of
  its name there; or when a function the statements call assigns or takes the address of a
  global of its name (a callee's own local or parameter of that name is not the caller's);
* a member path ``d->numElem`` changes when any of those statements or functions writes a
  member of that name (``MemberWrite``: ``x.f = e``, ``p->f += e``, ``++x.f``, ``&x.f``,
  through any base: an alias of ``d`` reaches the same member).

A called function whose mentions were not extracted (a file's functions far from its
directives: ``s2s.frontend.extract.var_use_functions``) may change any global: a global
variable the region's function does not know as its own local or parameter then counts as
changing (a name no mention knows as a variable, ``std`` in ``(std::size_t)n``, is none).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from s2s.model import SourceSpan, TranslationUnit
from s2s.model.host_facts import CHANGING_ROLES

#: the variables and member paths a section is written in
_TERM = re.compile(r"(?<![\w.>])[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")
_SEP = re.compile(r"\s*(?:\.|->)\s*")
_DECLARATORS = frozenset({"declare", "null-init", "init"})


@dataclass(frozen=True)
class Scope:
    """The statements a data region spans (``spans``, in ``function``), the functions they
    call, directly or not (``callees``), and the starts of the ``&s`` mentions among them
    that only hand ``s`` to a function reading its members (omp.read_only_args)."""

    function: str
    spans: tuple[SourceSpan, ...]
    callees: tuple[str, ...] = ()
    read_only: frozenset[int] = frozenset()

    @functools.cached_property
    def _ordered(self) -> tuple[list[int], list[SourceSpan]]:
        ordered = sorted(self.spans, key=lambda s: (s.start, s.end))
        return [s.start for s in ordered], ordered

    def holds(self, span: SourceSpan) -> bool:
        """Whether ``span`` lies inside one of the statements (a region's statements are
        siblings: they do not overlap, so the one starting last before it decides)."""
        starts, ordered = self._ordered
        i = bisect.bisect_right(starts, span.start) - 1
        while i >= 0 and ordered[i].end > span.start:
            s = ordered[i]
            if s.file == span.file and span.end <= s.end:
                return True
            i -= 1
        return False


def changing_term(model: TranslationUnit, section: str, scope: Scope) -> str | None:
    """The first variable or member path of ``section`` that the statements of ``scope``
    or the functions they call may change (module doc), or None."""
    # gathered once per scope (a region's labels each ask): kept on the scope itself, as
    # hashing its statements for a table would cost as much as a scan
    known = scope.__dict__.get("_changed")
    if known is None or known.model is not model:
        known = scope.__dict__["_changed"] = _Changed(model, scope)
    changed = known
    for term in _TERM.findall(section):
        parts = _SEP.split(term)
        if changed.variable(parts[0]) or len(parts) > 1 and changed.member(parts[-1]):
            return term
    return None


class _Changed:
    """What the statements of a scope and their callees change, gathered once per scope
    from the AST's mentions and member writes (module doc)."""

    def __init__(self, model: TranslationUnit, scope: Scope):
        self.model, self.scope = model, scope
        uses = model.in_function("var_uses", scope.function)
        self.names = frozenset(
            u.name for u in uses if (u.role in _DECLARATORS or u.role in CHANGING_ROLES and
                                     u.span.start not in scope.read_only) and
            scope.holds(u.span))
        self.own = frozenset(u.name for u in uses if u.local)
        callee_uses = [model.in_function("var_uses", c) for c in scope.callees]
        self.unextracted = any(not found for found in callee_uses)
        self.callee_globals = frozenset(u.name for found in callee_uses for u in found
                                        if not u.local and u.role in CHANGING_ROLES)
        self.callees = frozenset(scope.callees)

    def variable(self, name: str) -> bool:
        """Whether the region or its callees may change the variable ``name``."""
        if name in self.names or name in self.callee_globals:
            return True
        # a callee whose mentions were not extracted may change any global
        return self.unextracted and name in _globals(self.model) and name not in self.own

    def member(self, member: str) -> bool:
        """Whether the region or its callees may write a member named ``member``."""
        return any(w.function in self.callees or
                   w.function == self.scope.function and self.scope.holds(w.span)
                   for w in _writes_of(self.model, member))


def assigns_any(model: TranslationUnit, function: str, names, within=None,
                declarations: bool = True, outside=None) -> bool:
    """Whether ``function`` may assign, step or take the address of one of the variables
    ``names`` (``VarUse`` roles ``assign``/``address``), or with ``declarations`` declare one
    (which may only shadow it), in its statements at the spans ``within`` (all of its body
    when None) and not in ``outside``: the AST's answer to what a scan of the statements'
    text answered (``polynomial.assigned_in``), which macros and comments misled. True
    where the function's mentions were not extracted (nothing is known of it)."""
    if not model.in_function("var_uses", function):
        return True
    index = model.cached(("omp.changes.assigning", function),
                         lambda: _assigning(model, function))
    roles = CHANGING_ROLES | _DECLARATORS if declarations else CHANGING_ROLES
    for name in names:
        for use in index.get(name, ()):
            if use.role in roles and \
                    (within is None or any(starts_inside(use.span, s) for s in within)) and \
                    not any(starts_inside(use.span, s) for s in outside or ()):
                return True
    return False


def _assigning(model: TranslationUnit, function: str) -> dict[str, tuple]:
    """The mentions of ``function`` that assign, step, take the address of or declare a
    variable, by name (built once per function: the analyses ask per access)."""
    out: dict[str, list] = {}
    for use in model.in_function("var_uses", function):
        if use.role in CHANGING_ROLES or use.role in _DECLARATORS:
            out.setdefault(use.name, []).append(use)
    return {name: tuple(uses) for name, uses in out.items()}


def starts_inside(span: SourceSpan, outer) -> bool:
    """Whether ``span`` starts inside ``outer`` (a span, or a (file, start, end) triple, end
    excluded)."""
    file, start, end = (outer.file, outer.start, outer.end) if isinstance(outer, SourceSpan) \
        else outer
    return span.file == file and start <= span.start < end


def _writes_of(model: TranslationUnit, member: str) -> tuple:
    """The program's writes of members named ``member`` (``MemberWrite``), indexed once."""
    index = model.cached(("omp.changes.member_writes",), lambda: _by_member(model))
    return index.get(member, ())


def _by_member(model: TranslationUnit) -> dict[str, tuple]:
    out: dict[str, list] = {}
    for write in model.member_writes:
        out.setdefault(write.member, []).append(write)
    return {member: tuple(writes) for member, writes in out.items()}


def _globals(model: TranslationUnit) -> frozenset[str]:
    """The names of the global variables the program's extracted functions mention."""
    return model.cached(("omp.changes.globals",), lambda: frozenset(
        u.name for u in model.var_uses if not u.local))
