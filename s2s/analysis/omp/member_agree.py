"""A struct member's count where its allocations spell it differently but agree by the
program's own assignments.

XSBench allocates ``SD.concs`` twice: ``malloc(SD.length_concs * sizeof(double))`` when the
data is read from a file, and ``load_concs(SD.num_nucs, SD.max_num_nucs)`` (``12 *
max_num_nucs`` elements) when it is generated, followed in the same function by
``SD.length_mats = SD.length_num_nucs * SD.max_num_nucs; SD.length_concs = SD.length_mats;``
with ``SD.length_num_nucs = 12`` before. The texts differ, yet every allocation holds
``SD.length_concs`` elements once its function is done. omp.member_counts refuses such a
member; :func:`agreed_count` proves the agreement instead:

* every write of a member of that name anywhere in the program is one of its allocations
  (a pointer assigned from elsewhere would have a count nobody knows);
* a candidate count ``C`` (one allocation's count, naming only members of the owner,
  literals, ``sizeof`` and macros) is taken, and each member it names is written only in
  functions that allocate the member (so its value at any construct is the one the
  allocating function left);
* for each allocation, the allocating function's top-level statements are evaluated in
  order over the owner's members: ``o.f = e;`` gives ``f`` the value of ``e``, any other
  write of ``o.f`` (in a loop, through ``&o.f``) a fresh unknown, a write of the whole
  owner (``fread(&SD, ...)``, ``o = ...``) fresh unknowns for every member. The count at
  the allocation (evaluated before its statement; an out-parameter ``*(&o.f)`` of the
  allocating call after it) must equal ``C`` evaluated at the function's end, as
  polynomials. Other names the evaluation uses must not be written after their first
  use; a ``return`` or ``goto`` after the allocation other than the final ``return`` refuses.

Which statement writes what comes from the AST (``VarUse`` of the owner, ``MemberWrite``
with the owner as base), not from the statements' text: a write inside a macro's expansion
is seen where the macro is used, and one spelled in a comment or a string is none.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.changes import starts_inside
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import NotPoly, poly, render
from s2s.model import Stmt, TranslationUnit
from s2s.model.host_facts import VALUE_ROLES

_MEMBER = re.compile(r"([A-Za-z_]\w*)(\.|->)([A-Za-z_]\w*)")
_WORD = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)")
_OUT_PARAM = re.compile(r"\*\s*\(\s*&\s*([A-Za-z_]\w*)\s*(\.|->)\s*([A-Za-z_]\w*)\s*\)")


class _Refused(Exception):
    """The agreement cannot be proved."""


def agreed_count(model: TranslationUnit, root: str, sep: str, member: str) -> str | None:
    """The count of ``root<sep>member``'s storage, written in ``root``'s terms, that every
    allocation of the member agrees on (module doc); None when that is not proved."""
    allocations = [(a, found) for a in model.allocations
                   if (found := _MEMBER.fullmatch(norm_text(a.name))) and found.group(3) == member]
    if not allocations or any(a.count is None or a.function is None for a, _ in allocations):
        return None
    if not _only_allocated(model, member, [a for a, _ in allocations]):
        return None
    functions = {f.name: f for f in model.functions}
    allocations = _own_allocations(allocations, functions)
    if any(a.function not in functions or functions[a.function].body is None
           for a, _ in allocations):
        return None
    for candidate, owner in _candidates(allocations, model):
        fields = {m.group(3) for m in _MEMBER.finditer(candidate)}
        if not all(written_only_in(model, field, {a.function for a, _ in allocations})
                   for field in fields):
            continue
        try:
            for allocation, found in allocations:
                function = functions[allocation.function]
                _agrees(model, function, allocation, found.group(1), found.group(2),
                        _moved(candidate, owner, found.group(1), found.group(2)))
        except (_Refused, NotPoly):
            continue
        return _moved(candidate, owner, root, sep)
    return None


def _own_allocations(allocations, functions: dict) -> list:
    """``allocations`` without those a program records at a call of a function that makes
    the struct (``Particles *P = particles_create(n, h);`` stands for the ``p->rho =
    alloc_doubles(n)`` inside it): the call's count is the inner allocation's, which the
    agreement is proved on, in the function that writes the owner's members."""
    makers = {a.function for a, _ in allocations}
    kept = []
    for allocation, found in allocations:
        caller = functions.get(allocation.function)
        made = allocation.kind == "helper" and caller is not None and any(
            call.name in makers and call.name != allocation.function and
            call.span.start <= allocation.span.start < call.span.end for call in caller.calls)
        if not made:
            kept.append((allocation, found))
    return kept


def _candidates(allocations, model) -> list[tuple[str, tuple[str, str]]]:
    """Counts to try, in the owner's terms (``(owner, sep)`` with each): those naming one
    member first (the length the program keeps beside the array). A count naming a
    variable of the program (:func:`_variables`) besides the owner's members is none."""
    variables = {f.name for f in model.functions} | _variables(model)
    out = []
    for allocation, found in allocations:
        count = norm_text(allocation.count.text)
        if _OUT_PARAM.search(count) or not model.in_function("var_uses", allocation.function):
            continue                  # (the allocating function's mentions not extracted)
        owner = found.group(1)
        rest = re.sub(rf"(?<![\w.>]){re.escape(owner)}\s*(?:\.|->)\s*[A-Za-z_]\w*", "", count)
        names = [n for n in _WORD.findall(rest) if n != "sizeof"]
        if any(n in variables for n in names):
            continue
        out.append((count, (owner, found.group(2))))
    out.sort(key=lambda c: len(_MEMBER.findall(c[0])) != 1 or bool(re.search(r"[-+*/]", c[0])))
    return out + _kept_lengths(allocations, model, {c for c, _ in out})


def _kept_lengths(allocations, model, tried: set) -> list[tuple[str, tuple[str, str]]]:
    """The owner's members the allocating function gives a value with a plain ``=``
    (``p->n = n;`` beside ``p->rho = alloc_doubles(n);``): the length the program keeps
    beside the array, to try where the allocation's own count names a local or a
    parameter of that function (``n``), which means nothing where the member is used."""
    out = []
    for allocation, found in allocations:
        owner, sep = found.group(1), found.group(2)
        for write in model.in_function("member_writes", allocation.function):
            candidate = f"{owner}{sep}{write.member}"
            if write.base == owner and write.role == "assign" and write.value is not None \
                    and not write.whole and candidate not in tried:
                tried.add(candidate)
                out.append((candidate, (owner, sep)))
    return out


def _variables(model: TranslationUnit) -> frozenset[str]:
    """The names of the program's variables as the AST knows them: every variable its
    functions mention or declare (``s2s.model.host_facts.VarUse``; the allocating function's
    mentions are extracted, so a variable a count names is among them) and every parameter.
    Macros and enumerators are none."""
    return model.cached(("omp.member_agree.variables",), lambda: frozenset(
        {use.name for use in model.var_uses} |
        {p.name for f in model.functions for p in f.params if p.name}))


def _moved(count: str, owner: tuple[str, str], root: str, sep: str) -> str:
    name, _ = owner
    return re.sub(rf"(?<![\w.>]){re.escape(name)}\s*(?:\.|->)\s*([A-Za-z_]\w*)",
                  lambda m: f"{root}{sep}{m.group(1)}", count)


def _only_allocated(model: TranslationUnit, member: str, allocations) -> bool:
    """Whether every write of a member named ``member`` (the model's member writes) is one
    of ``allocations``: the writing expression (``x.f = malloc(n)``, ``&x.f`` in
    ``alloc(&x.f, n)``) overlaps the allocation, or a write of the whole owner ahead of an
    allocation of the member in the same function (``memcpy(&t, from, sizeof t)`` before
    ``t.w = malloc(...)``: the pointer it copies is replaced)."""
    allocating = {a.function for a in allocations}
    return all(any(a.span.file == write.extent.file and a.span.start < write.extent.end and
                   write.extent.start < a.span.end for a in allocations) or
               write.whole and (_replaced_after(write, allocations) or
                                write.made_by in allocating)
               for write in model.member_writes if write.member == member)


def _replaced_after(write, allocations) -> bool:
    """Whether one of ``allocations`` of the same owner follows the whole-struct ``write``
    in its function."""
    return any(a.function == write.function and a.span.file == write.extent.file and
               a.span.start >= write.extent.end and
               (found := _MEMBER.fullmatch(norm_text(a.name))) is not None and
               found.group(1) == write.base for a in allocations)


def written_only_in(model: TranslationUnit, field: str, functions: set) -> bool:
    """Whether every write of a member named ``field`` (``x.field = ``, ``p->field += ``,
    ``++x.field``, ``&x.field``: the model's member writes, from the AST) lies in one of
    ``functions``, or gives the whole struct the result of a call of one of them (``SD =
    binary_read(in)``: the members are the ones that function left)."""
    return all(write.function in functions or write.made_by in functions
               for write in model.member_writes if write.member == field)


def _agrees(model: TranslationUnit, function, allocation, owner: str, sep: str,
            target: str) -> None:
    """Raise :class:`_Refused` unless ``allocation``'s count equals ``target`` (both in
    ``owner``'s terms) at the end of ``function`` (module doc)."""
    body = function.body
    statements = list(body.children) if body.kind == "block" else [body]
    facts = _Facts(model, function.name, owner, sep)
    env: dict[str, str] = {}
    epoch = [0]
    used: dict[str, int] = {}
    at_allocation = None
    placed = None
    member = re.escape(owner) + r"\s*" + re.escape(sep) + r"\s*([A-Za-z_]\w*)"

    def value(expression: str, index: int, after: dict | None = None) -> str:
        def out_param(m):
            if m.group(1) != owner or after is None:
                raise _Refused
            return f"({after.get(m.group(3), _initial(m.group(3), epoch[0]))})"
        expression = _OUT_PARAM.sub(out_param, expression)
        expression = re.sub(rf"(?<![\w.>]){member}",
                            lambda m: f"({env.get(m.group(1), _initial(m.group(1), epoch[0]))})",
                            expression)
        for name in _WORD.findall(re.sub(r"\bs2s_\w+", "", expression)):
            if name != "sizeof":
                used.setdefault(name, index)
        if "->" in expression:
            raise _Refused
        return expression

    for index, stmt in enumerate(statements):
        holds = stmt.span.start <= allocation.span.start < stmt.span.end
        if holds:
            placed = index
            before = dict(env)
        if placed is not None and index >= placed and (
                any(s.kind == "goto" for s in stmt.walk()) or
                any(s.kind == "return" for s in stmt.walk()) and index != len(statements) - 1):
            raise _Refused
        _step(facts, stmt, env, epoch, index, value)
        if holds:
            saved, env_after = env, dict(env)
            env = before
            try:
                at_allocation = value(norm_text(allocation.count.text), index, env_after)
            finally:
                env = saved
    if at_allocation is None:
        raise _Refused
    at_end = value(target, len(statements))
    named = set(_WORD.findall(at_allocation + " " + at_end))
    if any(name in named and first < len(statements) and
           facts.written_from(name, statements[first].span.start)
           for name, first in used.items()):
        raise _Refused
    if render(poly(at_allocation)) != render(poly(at_end)):
        raise _Refused


def _initial(field: str, epoch: int) -> str:
    return f"s2s_{epoch}_{field}"


class _Facts:
    """The allocating function's mentions of variables and writes of the owner's members,
    from the AST (``VarUse``, ``MemberWrite``), for :func:`_step`."""

    def __init__(self, model: TranslationUnit, function: str, owner: str, sep: str):
        self.uses = model.in_function("var_uses", function)
        self.owner = owner
        self.writes = [w for w in model.in_function("member_writes", function)
                       if w.base == owner]
        #: roles of a mention of the owner that may change all its members (``&SD``,
        #: ``SD = ...``; a pointer owner handed to a call, which may write through it)
        self.whole = VALUE_ROLES | ({"argument"} if sep == "->" else set())
        self.member_writes = model.in_function("member_writes", function)

    def owner_written(self, stmt: Stmt) -> bool:
        return any(u.name == self.owner and u.role in self.whole and starts_inside(u.span, stmt.span)
                   for u in self.uses)

    def member_writes_in(self, stmt: Stmt) -> list:
        return [w for w in self.writes if starts_inside(w.span, stmt.span)]

    def written_from(self, name: str, offset: int) -> bool:
        """Whether the variable ``name``, one of its elements or one of its members may be
        given a value at or after ``offset`` in the function."""
        later = [u for u in self.uses if u.name == name and u.span.start >= offset]
        return any(u.role in VALUE_ROLES or u.element in VALUE_ROLES for u in later) or \
            any(w.base == name and w.span.start >= offset for w in self.member_writes)


def _step(facts: _Facts, stmt: Stmt, env: dict, epoch: list, index: int, value) -> None:
    """Apply one top-level statement's writes of the owner's members to ``env``: a whole
    write of the owner forgets every member; ``o.f = e;`` as the whole statement gives
    ``f`` the value of ``e``; any other write of ``o.f`` a fresh unknown."""
    if facts.owner_written(stmt):
        env.clear()
        epoch[0] = index + 1
        return
    writes = facts.member_writes_in(stmt)
    if stmt.kind == "expr" and len(writes) == 1 and writes[0].value is not None and \
            (writes[0].extent.start, writes[0].extent.end) == (stmt.span.start, stmt.span.end):
        env[writes[0].member] = value(writes[0].value.text, index)
        return
    for write in writes:
        env[write.member] = f"s2s_w{index}_{write.member}"
