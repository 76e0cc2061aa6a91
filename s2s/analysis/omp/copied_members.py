"""The count of a pointer copied out of a struct a helper made (issue 28, 3c/3d).

grid_levels_structs keeps the coarse level while the fine one replaces it in the struct::

    Grid g = grid_make(n, 0.5);
    double *coarse = g.val;         /* the coarse level stays */
    g = grid_make(8 * n, 0.25);     /* the fine level takes its place */

``coarse`` has no allocation of its own, and ``g.n`` is the fine level's count by the time the
kernels run, so the plan knew no count and mapped ``coarse`` per construct (60 launches). Its
count is what ``grid_make`` stored beside the member, in the call's arguments: ``n``. Proved
from the model when

* ``coarse`` is given a value once in the function, by that copy of ``s.m`` (``s`` a struct
  variable of the function, read through ``.``);
* the last write of ``s`` before the copy gives it whole the value of a call of a program
  function ``H`` (``MemberWrite.made_by``), and between that write and the copy nothing writes
  ``s`` or a member of it, takes its address or hands it to a call;
* ``H`` allocates the member once (``x.m = malloc(x.f * ...)``, its count either in ``H``'s
  parameters or one member ``x.f`` that ``H`` gives a value once, by a plain ``=`` of an
  expression of its parameters, before the allocation) and never assigns those parameters;
* the call's arguments keep their values after the copy (omp.settled.steady_value).
"""

from __future__ import annotations

import re

from s2s.analysis.omp.settled import steady_value
from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit
from s2s.model.host_facts import VALUE_ROLES

#: ``s.m`` (one level, through ``.``)
_DOT_MEMBER = re.compile(r"([A-Za-z_]\w*)\.([A-Za-z_]\w*)")
_WORD = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)")


def copied_section(model: TranslationUnit, function, label: str) -> str | None:
    """``[0:count]`` of ``label`` copied out of a struct a helper made (module doc), in the
    function's names; None where that is not proved."""
    copies = [c for c in model.in_function("pointer_copies", function.name) if c.target == label]
    uses = model.in_function("var_uses", function.name)
    if len(copies) != 1 or copies[0].source is None or copies[0].offset or \
            sum(1 for u in uses if u.name == label and u.role in VALUE_ROLES) != 1:
        return None
    copy = copies[0]
    found = _DOT_MEMBER.fullmatch(norm_text(copy.source))
    if found is None:
        return None
    owner, member = found.groups()
    made = _last_made(model, function, owner, copy.span.start)
    if made is None:
        return None
    call, helper = made
    count = _helper_count(model, helper.name, member)
    if count is None or len(call.args) != len(helper.params):
        return None
    args = {p.name: a for p, a in zip(helper.params, call.args, strict=True)}
    named = set(_WORD.findall(count)) & args.keys()
    if any(not steady_value(model, function, args[name].span) for name in named):
        return None
    text = _WORD.sub(lambda m: _operand(norm_text(args[m.group(1)].text))
                     if m.group(1) in named else m.group(1), count)
    return f"[0:{text}]"


def _operand(text: str) -> str:
    """``text`` as an operand: a name or a number as it is, anything else in parentheses."""
    return text if re.fullmatch(r"\w+", text) else f"({text})"


def _last_made(model: TranslationUnit, function, owner: str, before: int):
    """(call, function called) of the value ``owner`` was last given before ``before``
    (``Grid g = grid_make(n, 0.5);``, ``g = grid_make(...)``), where that is the whole
    value of a call of a program function and nothing after it, before ``before``, writes
    ``owner`` or a member of it, takes its address or hands it to a call; else None."""
    uses = [u for u in model.in_function("var_uses", function.name)
            if u.name == owner and u.span.start < before and
            u.role in (*VALUE_ROLES, "address", "argument")]
    if not uses:
        return None
    last = max(uses, key=lambda u: u.span.start)
    if last.role not in ("init", "assign") or last.value is None:
        return None
    value = last.value.span
    call = next((c for c in function.calls if (c.span.start, c.span.end) ==
                 (value.start, value.end)), None)
    helper = model.function(call.name) if call is not None else None
    if helper is None or helper.body is None or any(
            w.base == owner and value.end <= w.span.start < before
            for w in model.in_function("member_writes", function.name)):
        return None
    return call, helper


def _helper_count(model: TranslationUnit, helper: str, member: str) -> str | None:
    """The count of the one allocation of a member ``member`` in ``helper``, in its
    parameters' names (module doc); None where it is not known."""
    function = model.function(helper)
    allocations = [a for a in model.in_function("allocations", helper)
                   if (m := _DOT_MEMBER.fullmatch(norm_text(a.name))) and m.group(2) == member]
    if function is None or function.body is None or len(allocations) != 1 or \
            allocations[0].count is None:
        return None
    allocation = allocations[0]
    count = norm_text(allocation.count.text)
    params = {p.name for p in function.params}
    uses = model.in_function("var_uses", helper)
    if any(u.name in params and u.role in VALUE_ROLES for u in uses):
        return None     # a parameter assigned in the helper is not the call's argument
    holder = _DOT_MEMBER.fullmatch(norm_text(allocation.name)).group(1)
    returns = [s for s in function.body.walk() if s.kind == "return"]
    if len(returns) != 1 or not function.body.children or \
            returns[0] is not function.body.children[-1] or \
            not any(u.name == holder and returns[0].span.start <= u.span.start <
                    returns[0].span.end for u in uses):
        return None     # the struct handed back is the one holding the allocation
    field = _DOT_MEMBER.fullmatch(count)
    if field is not None:
        if field.group(1) != holder:
            return None
        name = field.group(2)
        writes = [w for w in model.in_function("member_writes", helper)
                  if w.base == holder and (w.whole or w.member == name)]
        if len(writes) != 1 or writes[0].value is None or writes[0].whole or \
                writes[0].span.start >= allocation.span.start:
            return None
        count = norm_text(writes[0].value.text)
    if _DOT_MEMBER.search(count) or "->" in count or \
            not set(_WORD.findall(count)) - {"sizeof"} <= params:
        return None
    return count
