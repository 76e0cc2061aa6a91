"""Pointer choices among device buffers in a transfer region (issue 29, item 5).

``(s % 2) ? d_b : d_a`` written as a launch argument or a copy's device side, and a local
pointer that only ever holds one of several region device buffers (``float *src = (s % 2) ?
d_b : d_a;`` in a time loop, an *alias*), name one of their candidates at run time. Which
one does not change where anything lives: every candidate keeps its own slot of the pool
(the alias is assigned from the variables, which the rewrite points at their slots), so
pooling stays legal. What the plan must know is what the use does to the buffers: a launch
through a choice reads every candidate it may read and updates every one it may write
(the others keep their value, so a write is a read too once a candidate holds a value); a
copy through a choice stays where it is written (``host_args._chosen_copy``), as for an
element ``d[i]`` of an array of device pointers with a variable index.

An alias is followed only when the AST says all of this holds (else the uses are refused as
before, with the place): it is a local of the function, never a region buffer; every
assignment gives it a region device buffer or a choice among them (or null); every other
mention is a whole launch argument, a copy's pointer argument or a null test; and no
pointer copy that renames a region buffer (a rotation ``t = a; a = b; b = t;``) lies between
its first assignment and its last use, unless all of them sit in one top-level loop: a loop
that launches is one operation of the region that reads and writes every buffer it touches
or rotates, so which name the alias meant there does not matter.

A mixin of ``host_code._Extractor`` (reads its ``model``, ``function``, ``space``, ``index``).
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.transfers.region import DEVICE
from s2s.model import kernel_ir as ir
from s2s.model.access import PointerCopy
from s2s.model.span import SourceSpan

#: roles of an alias's mention that only give it its value or test it
_ASSIGNING = frozenset({"declare", "init", "assign", "null-init"})
_COPY_CALLS = frozenset({"cudaMemcpy", "cudaMemcpyAsync"})


@dataclass(frozen=True)
class Alias:
    """A local pointer that holds one of ``candidates`` (region device buffers)."""

    name: str
    candidates: tuple[str, ...]
    #: its assignments (pointer copies), whose mentions of the candidates are not uses
    copies: tuple[SourceSpan, ...]


def _strip(value):
    while isinstance(value, ir.Cast):
        value = value.operand
    return value


class Choices:
    """Choices and aliases among region device buffers (see the module docstring)."""

    _aliases: dict[str, Alias] | None = None
    #: local pointers that would be aliases but for a rotation between their assignment and
    #: a use -> that rotation's place (for the refusal's message)
    _renamed: dict[str, SourceSpan] | None = None

    def aliases(self) -> dict[str, Alias]:
        """The function's aliases (computed once the device buffers are known: after the
        ``cudaMalloc`` calls of ``_collect_buffers``)."""
        if self._aliases is None:
            self._aliases = self._find_aliases()
        return self._aliases

    def renamed_alias(self, name: str) -> SourceSpan | None:
        """Where a rotation renames the buffers local pointer ``name`` holds before its use."""
        self.aliases()
        return (self._renamed or {}).get(name)

    def _find_aliases(self) -> dict[str, Alias]:
        self._renamed = {}
        copies: dict[str, list[PointerCopy]] = {}
        for copy in self.index.pointer_copies.inside(self.function.span):
            copies.setdefault(copy.target, []).append(copy)
        uses: dict[str, list] = {}
        for use in self.index.var_uses.inside(self.function.span):
            uses.setdefault(use.name, []).append(use)
        launched = {launch.kernel for launch in self.model.in_function("launches", self.function.name)}
        found = {}
        for name, assigned in copies.items():
            if name in self.space or name in self.arrays or name.startswith("s2s_swap@"):
                continue
            candidates = self._alias_candidates(assigned, uses.get(name, ()))
            mentions = uses.get(name, ())
            if not candidates or not mentions or not self._is_local(mentions):
                continue
            if not all(self._alias_use(u, assigned, launched) for u in mentions):
                continue
            rotation = self._rotation_between(assigned, mentions)
            if rotation is None:
                found[name] = Alias(name, candidates, tuple(c.span for c in assigned))
            else:
                self._renamed[name] = rotation
        return found

    def _alias_candidates(self, assigned: list[PointerCopy], uses) -> tuple[str, ...]:
        names: dict[str, None] = {}
        for copy in assigned:
            if copy.source is not None and not copy.offset and self.space.get(copy.source) == DEVICE:
                names[copy.source] = None
            elif copy.source is None and copy.choices and \
                    all(self.space.get(c) == DEVICE for c in copy.choices):
                names.update(dict.fromkeys(copy.choices))
            elif copy.source is None and not copy.choices and any(
                    u.role == "null-init" and copy.span.contains(u.span) for u in uses):
                continue          # float *p = NULL: nothing yet
            else:
                return ()
        return tuple(names)

    def _is_local(self, mentions) -> bool:
        """Declared in this function (a parameter or global has its declaration elsewhere)."""
        declared = [u for u in mentions if u.role in ("declare", "null-init", "init")]
        return bool(declared) and all(self.function.span.start <= u.decl < self.function.span.end
                                      for u in mentions)

    def _alias_use(self, use, assigned: list[PointerCopy], launched: set[str]) -> bool:
        if any(c.span.contains(use.span) for c in assigned) and use.role in _ASSIGNING:
            return True
        if use.role == "null-test":
            return True
        if use.role != "argument" or use.call is None:
            return False
        return use.call in launched or use.call in _COPY_CALLS and use.position in (0, 1)

    def _rotation_between(self, assigned: list[PointerCopy], mentions) -> SourceSpan | None:
        """A renaming of a region buffer that may come between an assignment of the alias
        and a use: one placed between them in the text, or one in a loop that holds some of
        them but not all (its next iteration renames after them). None when there is none,
        or when all of them lie in one top-level loop (see the module docstring)."""
        spans = [c.span for c in assigned] + [u.span for u in mentions]
        renames = [c.span for c in self.index.pointer_copies.inside(self.function.span) if c.target in self.space]
        loops = [s for s in self.function.body.children if s.kind in ("for", "while", "do")]
        if not renames or any(all(loop.span.contains(s) for s in spans) for loop in loops):
            return None
        for loop in loops:
            if any(loop.span.contains(s) for s in spans):
                inside = [r for r in renames if loop.span.contains(r)]
                if inside:
                    return inside[0]
        start, end = min(s.start for s in spans), max(s.end for s in spans)
        return next((r for r in renames if start <= r.start < end), None)

    # -- what an argument names ---------------------------------------------------------

    def chosen_buffers(self, site: SourceSpan, callee: str, position: int) -> list[str]:
        """The candidates argument ``position`` of the call at ``site`` may name: a choice
        ``c ? a : b`` between region device buffers (casts aside), or an alias; else []."""
        arg = self._host_arg(site, callee, position)
        value = _strip(arg.value) if arg is not None else None
        if isinstance(value, ir.Cond):
            sides = [_strip(value.then), _strip(value.other)]
            if all(isinstance(s, ir.Var) and self.space.get(s.name) == DEVICE for s in sides):
                return list(dict.fromkeys(s.name for s in sides))
            return []
        if isinstance(value, ir.Var) and value.name not in self.space:
            alias = self.aliases().get(value.name)
            if alias is not None:
                uses = self._arg_uses(site, callee, position)
                if len(uses) == 1 and uses[0].name == alias.name and uses[0].role == "argument":
                    return list(alias.candidates)
        return []

    def alias_assignment(self, span: SourceSpan) -> bool:
        """Whether ``span`` (a mention) lies in an alias's assignment (``float *src = (s % 2)
        ? d_b : d_a;`` mentions the candidates without using them)."""
        return any(s.contains(span) for alias in self.aliases().values() for s in alias.copies)

    def alias_spans(self, inside: SourceSpan) -> list[SourceSpan]:
        """The spans of the alias assignments inside ``inside``."""
        return [s for alias in self.aliases().values() for s in alias.copies if inside.contains(s)]
