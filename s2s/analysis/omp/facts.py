"""Range facts from input checks, and containment of index sections under them.

Programs check their sizes before they work (``if (n < 4 || steps < 1) { usage(); return
1; }``); past such a check ``n >= 4`` holds for as long as nothing assigns ``n``. With it,
``u[(n / 4) * ld + 3 * n / 4 : 1]`` lies inside ``u[ld + 1 : ld * n - ld + n]`` (``ld = n +
2``), so the element's read-back is part of the interior's: one copy, not three. Without
the fact it does not (for ``n = 0`` the interior is empty).

The proof is a sufficient condition, never a guess: ``P >= 0`` is shown by writing every
variable as its lower bound plus a non-negative unknown and finding no negative
coefficient. Integer divisions by constants (``n / 4``, ``3 * n / 4``) and remainders are
exact polynomials once the variable is split by residue (``n = 4 w + r``, each ``r`` a
case of its own), as long as their numerators are provably non-negative (C truncates
toward zero, which is the floor only there).
"""

from __future__ import annotations

import ast
import math
import re
from itertools import product

from s2s.analysis.polynomial import NotPoly, Poly, add, expand, mul, poly, scale
from s2s.model import Stmt
from s2s.model.host import Comparison
from s2s.model.host_facts import DECLARING_ROLES, VALUE_ROLES

_PLAIN = re.compile(r"[A-Za-z_]\w*")
_EXITS = ("exit", "abort", "_Exit", "quick_exit")
MAX_CASES = 256


def guard_facts(model, function, before: int) -> dict[str, int]:
    """Lower bounds ``var >= k`` established by early exits among the top-level statements
    of ``function``'s body that end before offset ``before``: ``if (a < k || ...) { ...;
    return; }`` with no else (its comparisons from the AST, ``Stmt.tests``). Only for a
    parameter or local that nothing assigns after its check and whose address is never
    taken (:func:`unchanged_after`)."""
    facts: dict[str, int] = {}
    body = function.body
    for stmt in body.children if body is not None else ():
        if stmt.span.end > before or stmt.kind != "if" or stmt.orelse is not None or \
                stmt.body is None or not _leaves(stmt.body, model):
            continue
        for test in stmt.tests:
            found = _lower_bound(test)
            if found is not None and \
                    unchanged_after(model, function, (found[0],), stmt.span.start, stmt.span.end):
                facts[found[0]] = max(found[1], facts.get(found[0], found[1]))
    return facts


def unchanged_after(model, function, names, start: int, end: int) -> bool:
    """Whether every one of ``names`` is a parameter of ``function`` or a local it declares
    before offset ``start``, that nothing declares again, assigns or steps from offset ``end``
    on and whose address is never taken (the function's mentions, ``VarUse``): a fact
    checked between ``start`` and ``end`` then holds for the rest of the function."""
    uses = model.in_function("var_uses", function.name)
    if not uses:
        return False
    params = {p.name for p in function.params}
    for name in names:
        if not _PLAIN.fullmatch(name):
            return False  # a member, a division: not a plain variable
        mine = [u for u in uses if u.name == name]
        declared = name in params or any(
            u.role in DECLARING_ROLES and u.local and u.span.start < start for u in mine)
        if not declared or any(u.role == "address" for u in mine) or any(
                (u.role in VALUE_ROLES or u.role == "declare") and u.span.start >= end
                for u in mine):
            return False
    return True


def _leaves(stmt: Stmt, model) -> bool:
    """Whether ``stmt`` certainly leaves the function: it returns, or it ends the program
    (:func:`ends_program`)."""
    last = stmt.children[-1] if stmt.kind == "block" and stmt.children else stmt
    return last.kind == "return" or ends_program(last, never_returning(model))


def ends_program(stmt: Stmt, never: frozenset[str]) -> bool:
    """Whether no path through ``stmt`` reaches what follows it: every one ends in a call
    that never returns — a callee declared so (``CallSite.noreturn``: ``exit``, a
    ``_Noreturn`` helper), one of ``never`` or of :data:`_EXITS`, anywhere in the statement's
    expression where it surely runs (``fprintf(...), exit(1);`` too; not an operand after
    ``&&``/``||`` nor a branch of ``?:``: ``CallSite.conditional``) — or in a loop only a
    jump leaves (``for (;;)``, ``while (1)``: ``Stmt.forever``) that has none that leaves it.
    A block through one of its statements (what follows it is never reached), an ``if``
    through both branches, a ``do`` through its body when nothing in it jumps (the
    ``do { ...; exit(1); } while (0)`` of a macro). ``switch`` and jumps are not followed (a
    ``break`` or ``goto`` may leave them)."""
    if stmt.kind == "expr":
        return any((call.noreturn or call.name in never or call.name in _EXITS) and
                   not call.conditional for call in stmt.calls)
    if stmt.kind == "block":
        return any(ends_program(child, never) for child in stmt.children)
    if stmt.kind == "if":
        return stmt.body is not None and stmt.orelse is not None and \
            ends_program(stmt.body, never) and ends_program(stmt.orelse, never)
    if stmt.kind in ("for", "while", "do") and stmt.forever:
        return stmt.body is not None and not _leaves_loop(stmt.body)
    if stmt.kind == "do":
        return stmt.body is not None and ends_program(stmt.body, never) and \
            not any(s.kind in ("break", "continue", "goto", "label")
                    for s in stmt.body.walk())
    return False


def _leaves_loop(body: Stmt, depth: int = 0) -> bool:
    """Whether a jump in ``body`` (a loop's, ``depth`` loops or ``switch``es deeper) may
    leave the loop: a ``return``, a ``goto``, or a ``break`` of its own."""
    if body.kind in ("return", "goto") or body.kind == "break" and depth == 0:
        return True
    inner = depth + (body.kind in ("for", "while", "do", "range_for", "switch"))
    parts = [*body.children, *(p for p in (body.body, body.orelse) if p is not None)]
    return any(_leaves_loop(part, inner) for part in parts)


def may_end_program(stmt: Stmt, never: frozenset[str]) -> bool:
    """Whether ``stmt``'s own expressions call a function that never returns anywhere (an
    operand of ``||``, ``?:`` or a comma too): running it may end the program."""
    return any(call.noreturn or call.name in never or call.name in _EXITS for call in stmt.calls)


def never_returning(model) -> frozenset[str]:
    """The program's functions that never return (no ``return``, no ``goto``/label, and
    :func:`ends_program` on their body: ``void fatal(const char *m) { fprintf(...);
    exit(1); }``, also through another such function), with the calls seen declared
    ``noreturn`` anywhere in the program. Computed once per model."""
    return model.cached("omp.facts.never_returning", lambda: _never_returning(model))


def _never_returning(model) -> frozenset[str]:
    declared = {call.name for function in model.functions for call in function.calls
                if call.noreturn}
    candidates = [f for f in model.functions if f.body is not None and f.name not in declared
                  and not any(s.kind in ("return", "goto", "label") for s in f.body.walk())]
    never = frozenset(declared)
    grown = True
    while grown:
        found = frozenset(f.name for f in candidates
                          if f.name not in never and ends_program(f.body, never))
        grown = bool(found)
        never |= found
    return never


def _lower_bound(test: Comparison) -> tuple[str, int] | None:
    """What failing the check ``test`` proves: ``n < 4`` (or ``4 > n``) false means ``n >=
    4``; ``n <= 4`` (``4 >= n``) false, ``n >= 5``."""
    try:
        left, right = poly(test.left), poly(test.right)
    except NotPoly:
        return None
    var, bound = (left, right) if test.op in ("<", "<=") else (right, left)
    if len(var) != 1 or set(bound) - {()}:
        return None
    (key, coefficient), = var.items()
    if len(key) != 1 or coefficient != 1 or not _PLAIN.fullmatch(key[0]):
        return None
    k = bound.get((), 0)
    return key[0], k if test.op in ("<", ">") else k + 1


def contains(outer: str, inner: str, facts: dict[str, int], definitions: dict[str, str]
             ) -> bool:
    """Whether section ``[lo:len]`` ``inner`` lies inside ``outer`` wherever ``facts``
    hold (``definitions``: single-assignment locals, expanded first)."""
    try:
        lo_out, len_out = _section(outer, definitions)
        lo_in, len_in = _section(inner, definitions)
    except NotPoly:
        return False
    start_gap = add(lo_in, scale(lo_out, -1))
    end_gap = add(add(lo_out, len_out), scale(add(lo_in, len_in), -1))
    return nonnegative(start_gap, facts) and nonnegative(end_gap, facts)


def drop_contained(sections: list[str], facts: dict[str, int], definitions: dict[str, str]
                   ) -> list[str]:
    """``sections`` without those inside another one of them (the first of equal ones kept)."""
    out = []
    for index, section in enumerate(sections):
        inside = any(contains(other, section, facts, definitions) and
                     not (contains(section, other, facts, definitions) and at > index)
                     for at, other in enumerate(sections) if at != index)
        if not inside:
            out.append(section)
    return out


def _section(text: str, definitions: dict[str, str]) -> tuple[Poly, Poly]:
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")) or inner.count(":") != 1:
        raise NotPoly(text)
    low, length = inner[1:-1].split(":")
    return poly(expand(low, definitions)), poly(expand(length, definitions))


def nonnegative(p: Poly, facts: dict[str, int]) -> bool:
    """Whether ``p >= 0`` for all integers satisfying ``facts`` (module docstring)."""
    divisions, plain = {}, set()
    for key in p:
        for atom in key:
            if atom.startswith("("):
                found = _division(atom)
                if found is None:
                    return False
                divisions[atom] = found
            else:
                plain.add(atom)
    variables = plain | {v for _, v, _, _, _ in divisions.values()}
    if any(v not in facts for v in variables):
        return False  # no lower bound: nothing to stand on
    modulus = {v: 1 for v in variables}
    for _, v, a, b, k in divisions.values():
        if a < 0 or a * facts[v] + b < 0:
            return False  # a negative numerator: truncation is not the floor
        modulus[v] = math.lcm(modulus[v], k)
    if math.prod(modulus.values()) > MAX_CASES:
        return False
    names = sorted(variables)
    for residues in product(*(range(modulus[v]) for v in names)):
        value = {}
        for v, r in zip(names, residues, strict=True):
            # v = M * (w0 + t) + r with w0 the least w allowed by v >= fact; t >= 0.
            w0 = -((r - facts[v]) // modulus[v])
            value[v] = {(f"{v}#t",): modulus[v], (): modulus[v] * w0 + r}
        if not _all_coefficients_nonnegative(_evaluate(p, value, divisions)):
            return False
    return True


def _division(atom: str):
    """``(3 * n / 4)`` -> ('/', 'n', 3, 0, 4); ``(n % 8)`` -> ('%', 'n', 1, 0, 8); else None
    (numerator linear in one variable, constant positive divisor)."""
    try:
        node = ast.parse(atom, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mod)) and
            isinstance(node.right, ast.Constant) and isinstance(node.right.value, int) and
            node.right.value > 0):
        return None
    try:
        numerator = poly(ast.unparse(node.left))
    except NotPoly:
        return None
    variables = {atom for key in numerator for atom in key}
    if len(variables) != 1 or any(len(key) > 1 for key in numerator):
        return None
    v = variables.pop()
    kind = "/" if isinstance(node.op, ast.Div) else "%"
    return kind, v, numerator.get((v,), 0), numerator.get((), 0), node.right.value


def _evaluate(p: Poly, value: dict[str, Poly], divisions) -> Poly:
    """``p`` with every variable and division atom replaced by its value in the unknowns."""
    out: Poly = {}
    for key, coefficient in p.items():
        term: Poly = {(): coefficient}
        for atom in key:
            term = mul(term, _atom_value(atom, value, divisions))
        out = add(out, term)
    return out


def _atom_value(atom: str, value: dict[str, Poly], divisions) -> Poly:
    if atom not in divisions:
        return value[atom]
    kind, v, a, b, k = divisions[atom]
    # numerator = a * (M * (w0 + t) + r) + b, with k dividing M: the t part divides exactly.
    step, constant = value[v][(f"{v}#t",)], value[v][()]
    numerator_constant = a * constant + b
    quotient = {(f"{v}#t",): a * step // k, (): numerator_constant // k}
    if kind == "/":
        return quotient
    return add({(f"{v}#t",): a * step, (): numerator_constant}, scale(quotient, -k))


def _all_coefficients_nonnegative(p: Poly) -> bool:
    return all(coefficient >= 0 for coefficient in p.values())
