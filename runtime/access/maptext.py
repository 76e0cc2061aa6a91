"""Launch-time instantiation of access-map text.

The tool writes access maps in isl notation over *symbolic* launch parameters
(``gdx..gdz``, ``bdx..bdz`` and the kernel's integer scalars). Index arithmetic multiplies
parameters with thread coordinates (``bdx*bx + tx``, ``width*y + x``); isl only accepts affine
text, so such a map becomes isl input only once the launch values are known. ``instantiate``
folds every product chain (``3*bdx*bx``) with the values into one coefficient (``768*bx``),
fixes the sign against the preceding operator (isl rejects ``2*(-3)*x``) and drops the
parameter header: the result is plain isl text without parameters.

The text's grammar is the one the tool prints: constraints are sums of product chains of
integers and names, joined by ``+``/``-``, compared with ``=``, ``>=``, ``<=``, ``<``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_TOKEN = re.compile(r"\d+|[A-Za-z_]\w*|<=|>=|->|\S")
_KEYWORDS = frozenset({"and", "or", "not", "exists", "implies", "mod", "floor", "ceil", "min", "max"})


class MapTextError(ValueError):
    """The text does not become affine with the given values (a product of two unknowns)."""


def split_header(text: str) -> tuple[list[str], str]:
    """``[a, b] -> { ... }`` -> (``['a', 'b']``, ``'{ ... }'``)."""
    text = text.strip()
    if text.startswith("["):
        head, _, body = text.partition("->")
        names = [n.strip() for n in head.strip()[1:-1].split(",") if n.strip()]
        return names, body.strip()
    return [], text


def instantiate(text: str, values: Mapping[str, int]) -> str:
    """The map text with every parameter of its header replaced by ``values[name]``."""
    names, body = split_header(text)
    missing = [n for n in names if n not in values]
    if missing:
        raise MapTextError(f"no launch value for {', '.join(missing)}")
    known = {n: int(values[n]) for n in names}
    tokens = _TOKEN.findall(body)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if not _is_factor(tokens[i]):
            out.append(tokens[i])
            i += 1
            continue
        chain = [tokens[i]]
        i += 1
        while i + 1 < len(tokens) and tokens[i] == "*" and _is_factor(tokens[i + 1]):
            chain.append(tokens[i + 1])
            i += 2
        _emit_chain(out, chain, known)
    return " ".join(out)


def _is_factor(token: str) -> bool:
    return token[0].isdigit() or token[0].isalpha() or token[0] == "_"


def _is_operand(token: str) -> bool:
    """Whether ``token`` ends an operand, so that a following ``+``/``-`` is binary."""
    return token not in _KEYWORDS and (token[-1].isalnum() or token[-1] in "_)]")


def _emit_chain(out: list[str], chain: list[str], known: dict[str, int]) -> None:
    if not any(t in known for t in chain):
        out.append("*".join(chain))
        return
    coeff, rest = 1, []
    for token in chain:
        if token[0].isdigit():
            coeff *= int(token)
        elif token in known:
            coeff *= known[token]
        else:
            rest.append(token)
    if len(rest) > 1:
        raise MapTextError(f"product {'*'.join(rest)} is not affine")
    binary = len(out) >= 2 and out[-1] in ("+", "-") and _is_operand(out[-2])
    if out and out[-1] in ("+", "-"):
        if out[-1] == "-":
            coeff = -coeff
        if binary:
            out[-1] = "-" if coeff < 0 else "+"
        else:
            out.pop()
            if coeff < 0:
                out.append("-")
    elif coeff < 0:
        out.append("-")
    out.append("*".join([str(abs(coeff))] + rest))
