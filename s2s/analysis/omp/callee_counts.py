"""A caller's element count spelled in a called function's names (issue 28, 3d).

A copy the plan places inside a called function names the array by the callee's pointer
and needs the section in names valid there. ``heat_run(&p, result, temp, ...)`` with
``const int n = p.nx * p.ny;`` in ``main`` and ``const int nx = p->nx, ny = p->ny, n = nx *
ny;`` in ``heat_run``: main's ``[0:n]`` is heat_run's ``[0:n]``, which a human sees at once
and the plan saw only through a map clause of the callee (gone once the data directives are
removed). Here both counts are expanded to the call's terms: a local by its one definition,
a parameter by its argument (a pointer parameter bound to ``&p`` reads ``p->nx`` as
``p.nx``), member paths and everything else kept as atoms; the callee's candidate is used
when the two are the same polynomial. Only for a callee called directly from the planned
function; the rewrite is checked to compile, so a name out of scope where the copy goes
drops the plan instead of breaking the program.
"""

from __future__ import annotations

import re

from s2s.analysis.polynomial import same_value
from s2s.model.host_facts import VALUE_ROLES

_ATOM = re.compile(r"(?<![\w.>])[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")
_ROOT = re.compile(r"[A-Za-z_]\w*")
_KEYWORDS = frozenset({"sizeof", "int", "long", "unsigned", "size_t", "double", "float",
                       "const", "char", "short", "signed"})


def section_in_callee(section: str, caller, caller_uses, callee, callee_uses,
                      args: tuple[str, ...]) -> str | None:
    """``[0:X]`` in ``callee``'s names for the caller's ``[0:N]`` (module doc), or None.
    ``*_uses`` are the functions' variable mentions (``s2s.model.host_facts.VarUse``);
    ``args`` are the call's arguments as written in the caller."""
    inner = section.strip()
    if not (inner.startswith("[") and inner.endswith("]")) or ":" not in inner:
        return None
    low, length = inner[1:-1].split(":", 1)
    if not same_value(low, "0") or not caller_uses or not callee_uses:
        return None            # (a function without mentions was not extracted: not known)
    wanted = _expanded(length, caller, caller_uses, {})
    if wanted is None:
        return None
    params = [p.name for p in callee.params]
    binding = dict(zip(params, args, strict=False)) if len(args) == len(params) else None
    if binding is None:
        return None
    for candidate in _candidates(callee, callee_uses):
        found = _expanded(candidate, callee, callee_uses, binding)
        if found is not None and same_value(found, wanted):
            return f"[0:{candidate}]"
    return None


def _candidates(callee, uses) -> list[str]:
    """The callee's scalar parameters and the names it gives a value with ``=`` (in
    order)."""
    names = [p.name for p in callee.params if not p.is_pointer]
    for use in uses:
        if use.value is not None and use.name not in names:
            names.append(use.name)
    return names


def _expanded(text: str, function, uses, binding: dict, depth: int = 0) -> str | None:
    """``text`` of ``function`` in the call's terms, or None where a name has more than one
    definition, or one other than ``=`` (``+=``, ``++``, its address taken): its value at
    the copy is not known."""
    if depth > 4:
        return None
    params = {p.name for p in function.params}

    def replace(match) -> str:
        atom = re.sub(r"\s+", "", match.group(0))
        root = _ROOT.match(atom).group(0)
        rest = atom[len(root):]
        if root in _KEYWORDS:
            return atom
        if root in binding:
            argument = binding[root].strip()
            if rest.startswith("->") and argument.startswith("&") and \
                    _ROOT.fullmatch(argument[1:].strip()):
                return f"{argument[1:].strip()}.{rest[2:]}"
            return f"({argument}){rest}"
        if rest or root in params:
            return atom
        definitions = [u for u in uses if u.name == root and u.role in VALUE_ROLES]
        if len(definitions) > 1 or any(u.value is None for u in definitions):
            raise LookupError(root)
        if not definitions:
            return atom  # a global or a macro
        inner = _expanded(definitions[0].value.text, function, uses, binding, depth + 1)
        if inner is None:
            raise LookupError(root)
        return f"({inner})"

    try:
        return _ATOM.sub(replace, text)
    except LookupError:
        return None
