"""Integer locals whose value is one expression of other locals wherever they are in scope.

``std::size_t npix; ... npix = (std::size_t)width * height;`` then ``make_buffer(npix)``:
the buffer's length is ``npix``, a loop nest over ``y < height``, ``x < width`` writes
``[0:height * width]`` of it, and only the definition says the two are the whole buffer.
A *settled* definition is one that may stand for the name in any comparison of sections
after it:

- the local, of integer type, is declared once in the function and given a value once:
  by its initializer, or (declared without one) by one plain assignment that is a statement
  of the function body's own sequence (it runs before everything after it, once);
- its address is never taken (nothing writes it behind its name);
- the value is an integer expression of locals (:attr:`VarUse.integral`, rendered from the
  AST with the integral casts taken off), each declared once, never written after the
  definition nor ever through its address, so the expression keeps its value too.

All from the AST's mentions (:class:`s2s.model.host_facts.VarUse`), never the text.
"""

from __future__ import annotations

from collections import Counter

from s2s.analysis.omp.changes import Scope
from s2s.analysis.omp.index_locals import mentions_inside
from s2s.analysis.omp.read_only_args import read_only_addresses
from s2s.model.host_facts import DECLARING_ROLES, VALUE_ROLES


def settled_definitions(model, function) -> dict[str, str]:
    """name -> value of the settled definitions of ``function`` (module doc); memoized per
    unit and function."""
    if function is None or function.body is None:
        return {}
    return model.cached(("omp.settled", function.name, function.span.start),
                        lambda: _definitions(model, function))


def steady_value(model, function, value) -> bool:
    """Whether the variables the value at span ``value`` (an initializer or an assigned
    value in ``function``) reads keep their values wherever it is used after it: each is a
    parameter or a local, declared at most once in the function, never written after the
    value nor through its address (the rule of the module doc for a definition's value,
    parameters included: they are never declared in the body)."""
    uses, declared, addressed, by_name = _tables(model, function)
    inside = mentions_inside(uses, value)
    return all(u.local and declared[u.name] <= 1 and (
        u.name not in addressed and
        not any(w.span.start >= value.end for w in by_name.get(u.name, ())
                if w.role != "declare") or
        _steady_fields(model, function, value, u.name, inside)) for u in inside)


def _steady_fields(model, function, value, name: str, inside: list) -> bool:
    """Whether the struct ``name``, whose address is taken, keeps the members the value at
    span ``value`` reads (``n = p.nx * p.ny`` then ``heat_run(&p, ...)`` with a
    ``const heat_params *`` parameter): every mention of it there reads one member
    (``VarUse.field``, through ``.``: not a pointer's target) and :func:`steady_member`
    holds for those members."""
    mine = [u for u in inside if u.name == name]
    if not mine or any(u.role != "member" or u.field is None or u.pointer for u in mine):
        return False
    return steady_member(model, function, value, [name, *sorted({u.field for u in mine})])


def steady_member(model, function, value, path: list[str]) -> bool:
    """Whether the member path ``path`` (``["p", "len"]`` for ``p.len``) read by the value at
    span ``value`` keeps its value wherever that value is used after it: ``p`` is a local
    or parameter of ``function``, declared at most once, whose address is never taken, that
    is never assigned or passed whole to a call after the value, and none of the path's
    members (nor ``p`` whole) is written after it (:class:`s2s.model.host_facts.MemberWrite`,
    which also counts ``&p.len`` handed on). A struct of the caller reached through a
    pointer (``p->len``) is no such path."""
    root, fields = path[0], set(path[1:])
    uses, declared, addressed, _by_name = _tables(model, function)
    mine = [u for u in uses if u.name == root]
    if not mine or not all(u.local for u in mine) or declared[root] > 1:
        return False
    if root in addressed and not _addresses_read_members(model, function, mine, fields):
        return False
    if any(u.span.start >= value.end and u.role in ("assign", "argument") for u in mine):
        return False
    return not any(w.base == root and w.span.start >= value.end and
                   (w.whole or w.member in fields)
                   for w in model.in_function("member_writes", function.name))


def _addresses_read_members(model, function, mentions, fields: set[str]) -> bool:
    """Whether every ``&p`` among ``mentions`` hands ``p`` to a function of the program
    whose parameter only reads it: a pointer to const (``const burgers_params *p``, from
    the AST's type), or one used only as ``p->field`` (omp.read_only_args), and that
    writes none of ``fields`` through it."""
    harmless = read_only_addresses(model, Scope(function.name, (function.body.span,)))
    for use in mentions:
        if use.role != "address":
            continue
        callee = model.function(use.call) if use.call else None
        if callee is None or use.position is None or use.position >= len(callee.params):
            return False
        param = callee.params[use.position]
        if not (param.pointee_const or use.span.start in harmless) or any(
                w.base == param.name and (w.whole or w.member in fields)
                for w in model.in_function("member_writes", use.call)):
            return False
    return True


def _tables(model, function) -> tuple:
    """(mentions, declarations per name, names whose address is taken, writes per name) of
    ``function``, memoized per unit and function."""
    def build():
        uses = model.in_function("var_uses", function.name)
        by_name: dict[str, list] = {}
        for use in uses:
            if use.role in VALUE_ROLES or use.role == "declare":
                by_name.setdefault(use.name, []).append(use)
        return (uses, Counter(u.name for u in uses if u.role in DECLARING_ROLES),
                frozenset(u.name for u in uses if u.role == "address"), by_name)
    return model.cached(("omp.settled.tables", function.name, function.span.start), build)


def _definitions(model, function) -> dict[str, str]:
    _uses, declared, addressed, by_name = _tables(model, function)
    top = [s.span for s in function.body.children if s.kind == "expr"]
    out = {}
    for name, writes in by_name.items():
        if declared[name] != 1 or name in addressed:
            continue
        definition = _definition(writes, top)
        if definition is None:
            continue
        value = definition.value.span
        if all(declared[u.name] == 1 for u in mentions_inside(_uses, value)) and \
                steady_value(model, function, value):
            out[name] = definition.integral
    return out


def _definition(writes: list, top: list):
    """The one write that gives the local its value, or None."""
    if len(writes) == 1 and writes[0].role == "init":
        found = writes[0]
    elif [w.role for w in writes] == ["declare", "assign"] and \
            any(s.start <= writes[1].span.start < s.end for s in top):
        found = writes[1]
    else:
        return None
    if not writes[0].integer or writes[0].pointer or found.value is None or \
            found.integral is None:
        return None
    return found
