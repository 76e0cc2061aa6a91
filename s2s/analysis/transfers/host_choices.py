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

Aliases may be assigned from one another (``float *d_src = d_temp_a;`` before a time loop
that rotates ``d_src``/``d_dst`` through ``tmp``): each may hold any device buffer that flows
into the set, and a rotation among aliases renames no buffer.

An alias is followed only when the AST says all of this holds (else the uses are refused as
before, with the place): it is a local of the function, never a region buffer; every
assignment gives it a region device buffer, a choice among them, another alias or null; every
other mention is a whole launch argument, a copy's pointer argument, a null test or the source
of another alias's assignment; and no
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
        """The largest set of local pointers each assigned only region device buffers, choices
        among them, null or another pointer of the set (``d_src = d_temp_a;`` then ``tmp =
        d_src; d_src = d_dst; d_dst = tmp;`` in a time loop), and used only as the module
        docstring says; each may hold any device buffer that flows into it."""
        self._renamed = {}
        copies: dict[str, list[PointerCopy]] = {}
        for copy in self.index.pointer_copies.inside(self.function.span):
            copies.setdefault(copy.target, []).append(copy)
        uses: dict[str, list] = {}
        for use in self.index.var_uses.inside(self.function.span):
            uses.setdefault(use.name, []).append(use)
        launched = {launch.kernel for launch in self.model.in_function("launches", self.function.name)}
        pool = {name for name in copies if name not in self.space and name not in self.arrays and
                not name.startswith("s2s_swap@") and uses.get(name) and self._is_local(uses[name])}
        while True:
            spans = [c.span for name in pool for c in copies[name]]
            dropped = set()
            for name in pool:
                assigned, mentions = copies[name], uses[name]
                if not self._alias_sources(assigned, mentions, pool) or \
                        not all(self._alias_use(u, assigned, launched, spans) for u in mentions):
                    dropped.add(name)
                    continue
                rotation = self._rotation_between(assigned, mentions)
                if rotation is not None:
                    self._renamed[name] = rotation
                    dropped.add(name)
            if not dropped:
                break
            pool -= dropped
        flows = {name: set(self._alias_sources(copies[name], uses[name], pool)) for name in pool}
        while True:
            grown = False
            for name in pool:
                inflow = set().union(*(flows[c.source] for c in copies[name] if c.source in pool))
                if not inflow <= flows[name]:
                    flows[name] |= inflow
                    grown = True
            if not grown:
                break
        return {name: Alias(name, tuple(sorted(flows[name] - pool - {""})), tuple(c.span for c in copies[name]))
                for name in pool if flows[name] - pool - {""}}

    def _alias_sources(self, assigned: list[PointerCopy], uses, pool: set[str]) -> tuple[str, ...]:
        """What the assignments of a would-be alias give it (device buffers, members of
        ``pool``), or () when one gives it anything else."""
        names: dict[str, None] = {}
        for copy in assigned:
            if copy.source is not None and not copy.offset and \
                    (self.space.get(copy.source) == DEVICE or copy.source in pool):
                names[copy.source] = None
            elif copy.source is None and copy.choices and \
                    all(self.space.get(c) == DEVICE for c in copy.choices):
                names.update(dict.fromkeys(copy.choices))
            elif copy.source is None and not copy.choices and any(
                    u.role == "null-init" and copy.span.contains(u.span) for u in uses):
                names.setdefault("", None)  # float *p = NULL: nothing yet
            else:
                return ()
        names.pop("", None)
        return tuple(names) or (("",) if assigned else ())

    def _is_local(self, mentions) -> bool:
        """Declared in this function (a parameter or global has its declaration elsewhere)."""
        declared = [u for u in mentions if u.role in ("declare", "null-init", "init")]
        return bool(declared) and all(self.function.span.start <= u.decl < self.function.span.end
                                      for u in mentions)

    def _alias_use(self, use, assigned: list[PointerCopy], launched: set[str], spans) -> bool:
        if any(c.span.contains(use.span) for c in assigned) and use.role in _ASSIGNING:
            return True
        if use.role in ("read", "argument") and any(s.contains(use.span) for s in spans) and \
                not any(c.span.contains(use.span) for c in assigned):
            return True                            # the source of another alias's assignment
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
