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
"""

from __future__ import annotations

import re

from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import NotPoly, poly, render
from s2s.model import Stmt, TranslationUnit

_MEMBER = re.compile(r"([A-Za-z_]\w*)(\.|->)([A-Za-z_]\w*)")
_WORD = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)")
_ASSIGN = r"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
_OUT_PARAM = re.compile(r"\*\s*\(\s*&\s*([A-Za-z_]\w*)\s*(\.|->)\s*([A-Za-z_]\w*)\s*\)")


class _Refused(Exception):
    """The agreement cannot be proved."""


def agreed_count(model: TranslationUnit, source: bytes, root: str, sep: str,
                 member: str) -> str | None:
    """The count of ``root<sep>member``'s storage, written in ``root``'s terms, that every
    allocation of the member agrees on (module doc); None when that is not proved."""
    text = source.decode("utf-8", "replace")
    allocations = [(a, found) for a in model.allocations
                   if (found := _MEMBER.fullmatch(norm_text(a.name))) and found.group(3) == member]
    if not allocations or any(a.count is None or a.function is None for a, _ in allocations):
        return None
    if not _only_allocated(model, member, [a for a, _ in allocations]):
        return None
    functions = {f.name: f for f in model.functions}
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
                _agrees(text, function, allocation, found.group(1), found.group(2),
                        _moved(candidate, owner, found.group(1), found.group(2)))
        except (_Refused, NotPoly):
            continue
        return _moved(candidate, owner, root, sep)
    return None


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


def _agrees(text: str, function, allocation, owner: str, sep: str, target: str) -> None:
    """Raise :class:`_Refused` unless ``allocation``'s count equals ``target`` (both in
    ``owner``'s terms) at the end of ``function`` (module doc)."""
    body = function.body
    statements = list(body.children) if body.kind == "block" else [body]
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
        piece = text[stmt.span.start:stmt.span.end]
        holds = stmt.span.start <= allocation.span.start < stmt.span.end
        if holds:
            placed = index
            before = dict(env)
        if placed is not None and index >= placed and (
                any(s.kind == "goto" for s in stmt.walk()) or
                any(s.kind == "return" for s in stmt.walk()) and index != len(statements) - 1):
            raise _Refused
        _step(piece, stmt, owner, sep, member, env, epoch, index, value)
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
    for name, first in used.items():
        if name not in named:
            continue
        later = "".join(text[s.span.start:s.span.end] for s in statements[first:])
        if re.search(rf"(?<![\w.>]){re.escape(name)}\b(?:\s*(?:\.|->)\s*\w+|\s*\[[^]]*\])*"
                     rf"{_ASSIGN}|(?:\+\+|--|&)\s*{re.escape(name)}\b|"
                     rf"(?<![\w.>]){re.escape(name)}\s*(?:\+\+|--)", later):
            raise _Refused
    if render(poly(at_allocation)) != render(poly(at_end)):
        raise _Refused


def _initial(field: str, epoch: int) -> str:
    return f"s2s_{epoch}_{field}"


def _step(piece: str, stmt: Stmt, owner: str, sep: str, member: str, env: dict,
          epoch: list, index: int, value) -> None:
    """Apply one top-level statement's writes of the owner's members to ``env``."""
    whole = re.search(rf"(?<![\w.>])&\s*{re.escape(owner)}\b(?!\s*(?:\.|->))|"
                      rf"(?<![\w.>]){re.escape(owner)}\s*{_ASSIGN}", piece)
    if whole or sep == "->" and re.search(rf"[(,]\s*{re.escape(owner)}\s*[,)]", piece):
        env.clear()
        epoch[0] = index + 1
        return
    simple = re.fullmatch(rf"\s*{member}\s*=(?!=)\s*(.*?)\s*;?\s*", piece, re.S)
    if stmt.kind == "expr" and simple and not re.search(
            rf"{member}\s*{_ASSIGN}|(?:\+\+|--|&)\s*{member}", simple.group(2)):
        env[simple.group(1)] = value(simple.group(2), index)
        return
    for write in re.finditer(rf"(?<![\w.>]){member}(?:{_ASSIGN}|\s*(?:\+\+|--))|"
                             rf"(?:\+\+|--|&)\s*{member}", piece):
        field = write.group(1) or write.group(2)
        env[field] = f"s2s_w{index}_{field}"
