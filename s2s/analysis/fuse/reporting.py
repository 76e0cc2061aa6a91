"""Host functions that only report a status they are given (issue 29: fuse on real programs).

A vendor-sample project checks every runtime call through a macro that passes the call's
status to a reporting function template (``CHECK_STATUS(cudaDeviceSynchronize())`` expanding
to ``report(status, "expr", __FILE__, __LINE__)``, whose body prints and exits when the status
is not zero). Such a call between two launches checks a synchronization of the default
stream: it touches no device data, so a run of launches goes on past it exactly as past a bare
``cudaDeviceSynchronize()``. Before, the reporting function was an unknown call and ended the
run, so no launch pair of such a project was ever considered for fusion.

A *reporting helper* is a host function with a body that

- is not a member function and launches nothing;
- takes its parameters by value or as pointers or references to ``const`` (the status, the
  expression's text, the file name, the line): it cannot write the caller's data through them;
- holds only declarations, expressions, ``if``/``switch`` branches and returns (no loop);
- assigns, or takes the address of, no variable declared outside itself;
- calls only functions of ``allowed`` (printing, exiting, the runtime's error strings, value
  math) and other reporting helpers (``status_name(code)`` turning a status into its text).
"""

from __future__ import annotations

from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES
from s2s.model.unit import TranslationUnit

#: statement kinds a reporting helper's body may hold (branches, no loops)
_KINDS = frozenset({"block", "return", "decl", "if", "expr", "null", "switch", "case",
                    "default", "break"})
#: roles of a mention that give a variable a value (``s2s.model.host_facts``)
_CHANGING = DECLARING_ROLES | CHANGING_ROLES


def reporting_helpers(unit: TranslationUnit, allowed: frozenset[str]) -> frozenset[str]:
    """Names of the reporting helpers of ``unit`` (see the module docstring); ``allowed``:
    the calls that touch no device data and no caller's data (printing, ``exit``, error
    strings, library math)."""
    candidates = {}
    for function in unit.functions:
        if function.body is None or function.member_of is not None or \
                unit.in_function("launches", function.name) or \
                not all(_read_only(p) for p in function.params):
            continue
        if any(s.kind not in _KINDS for s in function.body.walk()) or \
                _writes_outside(unit, function):
            continue
        candidates[function.name] = {c.name for s in function.body.walk() for c in s.calls}
    return closed_under_calls(candidates, allowed)


def closed_under_calls(candidates: dict[str, set[str]], allowed: frozenset[str]
                       ) -> frozenset[str]:
    """The candidates (name -> names it calls) that call only ``allowed`` functions and
    candidates kept: one calling a function dropped is dropped in turn."""
    kept = set(candidates)
    changed = True
    while changed:
        changed = False
        for name in sorted(kept):
            if not candidates[name] <= kept | allowed:
                kept.discard(name)
                changed = True
    return frozenset(kept)


def _read_only(param) -> bool:
    """A parameter through which the function cannot change its caller's data."""
    text = param.type
    if "&" in text:
        return "const" in text.split("&")[0] and "&&" not in text
    if param.is_pointer or "[" in text:
        return "const" in text.split("*")[0].split("[")[0]
    return True


def _writes_outside(unit: TranslationUnit, function) -> bool:
    """Whether the body assigns (or takes the address of) a variable declared outside it."""
    span = function.span
    return any(use.role in _CHANGING and not span.start <= use.decl < span.end
               for use in unit.in_function("var_uses", function.name))
