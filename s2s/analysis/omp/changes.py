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

import re
from dataclasses import dataclass

from s2s.model import SourceSpan, TranslationUnit

#: the variables and member paths a section is written in
_TERM = re.compile(r"(?<![\w.>])[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")
_SEP = re.compile(r"\s*(?:\.|->)\s*")
_DECLARATORS = frozenset({"declare", "null-init", "init"})
_CHANGES = frozenset({"assign", "address"})


@dataclass(frozen=True)
class Scope:
    """The statements a data region spans (``spans``, in ``function``), the functions they
    call, directly or not (``callees``), and the starts of the ``&s`` mentions among them
    that only hand ``s`` to a function reading its members (omp.read_only_args)."""

    function: str
    spans: tuple[SourceSpan, ...]
    callees: tuple[str, ...] = ()
    read_only: frozenset[int] = frozenset()

    def holds(self, span: SourceSpan) -> bool:
        return any(s.file == span.file and s.start <= span.start and span.end <= s.end
                   for s in self.spans)


def changing_term(model: TranslationUnit, section: str, scope: Scope) -> str | None:
    """The first variable or member path of ``section`` that the statements of ``scope``
    or the functions they call may change (module doc), or None."""
    uses = [u for u in model.in_function("var_uses", scope.function) if scope.holds(u.span)]
    callees = set(scope.callees)
    for term in _TERM.findall(section):
        parts = _SEP.split(term)
        root = parts[0]
        if any(u.name == root and (u.role in _DECLARATORS or u.role in _CHANGES and
                                   u.span.start not in scope.read_only) for u in uses) or \
                _changed_by_callees(model, root, scope):
            return term
        if len(parts) > 1 and any(
                w.member == parts[-1] and (w.function in callees or
                                           w.function == scope.function and
                                           scope.holds(w.span))
                for w in model.member_writes):
            return term
    return None


def _changed_by_callees(model: TranslationUnit, name: str, scope: Scope) -> bool:
    """Whether a function of ``scope.callees`` may assign the global ``name`` (module doc)."""
    unknown = name in _globals(model) and not any(
        u.name == name and u.local for u in model.in_function("var_uses", scope.function))
    for callee in scope.callees:
        uses = model.in_function("var_uses", callee)
        if not uses and unknown:
            return True
        if any(u.name == name and not u.local and u.role in _CHANGES for u in uses):
            return True
    return False


def _globals(model: TranslationUnit) -> frozenset[str]:
    """The names of the global variables the program's extracted functions mention."""
    return model.cached(("omp.changes.globals",), lambda: frozenset(
        u.name for u in model.var_uses if not u.local))
