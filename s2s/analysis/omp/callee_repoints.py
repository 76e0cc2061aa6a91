"""Pointer members a called function of the program gives new storage (issue 28).

``double *v = g.val; refine(&g);`` where ``refine`` (defined in any file of the program)
does ``g->val = fresh;``: after the call ``v`` holds the old storage and ``g.val`` the new
one, as after a whole write ``g = make(n)``. The caller's own facts do not say so (the write
is the callee's), so a region after the call took ``v`` for ``g.val``. The rule, from the
facts of the AST: a callee re-points member ``m`` of its parameter ``p`` where one of its
pointer copies (``p->m = e``, or a whole ``*p = x``) lies inside a write of a member of ``p``
(:class:`MemberWrite` with ``base`` ``p``), or where it hands ``p`` on to a function that
re-points that member. The caller's call ``f(&g)`` then gives ``g.m`` unknown storage: a
:class:`PointerCopy` without source at the argument, as the front end records for a
function it only declares (``through`` names the callee).
"""

from __future__ import annotations

from s2s.model import PointerCopy, TranslationUnit

#: how many calls deep a parameter is followed (a recursion gives up there)
_DEPTH = 8

_cache: dict[int, tuple[TranslationUnit, dict[str, list[PointerCopy]]]] = {}


def call_copies(model: TranslationUnit, function: str) -> list[PointerCopy]:
    """The pointer copies the calls in ``function`` make by re-pointing members of a struct
    whose address they hand to a function of the program."""
    held = _cache.get(id(model))
    if held is None or held[0] is not model:
        _cache.clear()                  # one model at a time: a run plans one program
        held = (model, _all_call_copies(model))
        _cache[id(model)] = held
    return held[1].get(function, [])


def _all_call_copies(model: TranslationUnit) -> dict[str, list[PointerCopy]]:
    params = {f.name: [p.name for p in f.params] for f in model.functions if f.body is not None}
    facts = _Facts(model, params)
    out: dict[str, list[PointerCopy]] = {}
    for use in model.var_uses:
        if use.role != "address" or use.pointer or use.call not in params \
                or use.position is None or use.field is not None:
            continue
        for member in sorted(facts.repointed(use.call, use.position, 0)):
            out.setdefault(use.function, []).append(
                PointerCopy(f"{use.name}.{member}", None, use.span, use.function,
                            through=use.call))
    return out


class _Facts:
    """The program's facts of the defined functions, grouped by function once."""

    def __init__(self, model: TranslationUnit, params: dict[str, list[str]]):
        self.params = params
        self.writes: dict[str, list] = {}
        self.copies: dict[str, list] = {}
        self.uses: dict[str, list] = {}
        for group, items in ((self.writes, model.member_writes),
                             (self.copies, model.pointer_copies), (self.uses, model.var_uses)):
            for item in items:
                if item.function in params:
                    group.setdefault(item.function, []).append(item)
        self.memo: dict[tuple[str, int], frozenset[str]] = {}

    def repointed(self, callee: str, position: int, depth: int) -> frozenset[str]:
        """The member paths (``val``) ``callee`` gives new storage through its parameter
        ``position`` (a pointer to a struct)."""
        key = (callee, position)
        if key in self.memo:
            return self.memo[key]
        names = self.params.get(callee, [])
        if position >= len(names) or depth > _DEPTH:
            return frozenset()
        self.memo[key] = frozenset()            # a recursion adds nothing on its way round
        param = names[position]
        prefix = f"{param}->"
        writes = [w.extent for w in self.writes.get(callee, ())
                  if w.base == param and w.role == "assign"]
        found = {copy.target[len(prefix):] for copy in self.copies.get(callee, ())
                 if copy.target.startswith(prefix)
                 and any(e.start <= copy.span.start and copy.span.end <= e.end for e in writes)}
        for use in self.uses.get(callee, ()):
            if use.name == param and use.pointer and use.call in self.params \
                    and use.position is not None and use.role != "address" and use.field is None:
                found |= self.repointed(use.call, use.position, depth + 1)
        self.memo[key] = frozenset(found)
        return self.memo[key]
