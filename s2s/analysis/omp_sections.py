"""Index ranges the host touches: the sub-array a ``target update`` has to move.

When the host reads only a boundary row, one element of a flag array or a strided column
block inside some statement, copying the whole array is waste. Index expressions are read
as polynomials over the program's integer variables with integer coefficients (anything
else — a division, a call — is an opaque atom). An index affine in the counters of the
canonical ``for`` loops around it (``for (i = lo; i < hi; i++)``, ``<=`` too), with
coefficients that are non-negative constants or sizes, ranges from its value at the lower
bounds to its value at the last iteration; the section is the contiguous hull
``[lowest : highest - lowest + 1]``. Any doubt gives None and the caller copies the whole
array.
"""

from __future__ import annotations

import ast
import re

from s2s.analysis.omp_ir import LOOP_KINDS, Access, CallEvent, Node, counting_loop

Poly = dict  # tuple of sorted atom names -> int coefficient

_CAST = re.compile(r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:size_t|ptrdiff_t|int|long|"
                   r"long\s+long|unsigned|short)\s*\)")
_SAFE = re.compile(r"^[\w\s+\-*/%().]*$")

class _NotPoly(Exception):
    pass


def poly(text: str) -> Poly:
    """``2*n - 1`` -> {('n',): 2, (): -1}; raises _NotPoly for what is not a polynomial."""
    text = _CAST.sub("", text)  # (size_t)n: the same value for the sizes it is used on
    if not _SAFE.match(text):
        raise _NotPoly(text)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        raise _NotPoly(text) from err
    return _poly(tree, text)


def _poly(node, text: str) -> Poly:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return {(): node.value} if node.value else {}
    if isinstance(node, ast.Name):
        return {(node.id,): 1}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _poly(node.operand, text)
        return inner if isinstance(node.op, ast.UAdd) else scale(inner, -1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        right = _poly(node.right, text)
        return add(_poly(node.left, text), right if isinstance(node.op, ast.Add)
                   else scale(right, -1))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return mul(_poly(node.left, text), _poly(node.right, text))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
        atom = "(" + ast.unparse(node).replace("//", "/") + ")"
        return {(atom,): 1}
    raise _NotPoly(text)


def same_value(a: str, b: str) -> bool:
    """Whether two integer expressions are the same polynomial (text equality otherwise)."""
    try:
        return poly(a) == poly(b)
    except _NotPoly:
        return re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b)


def add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + value
        if out[key] == 0:
            del out[key]
    return out


def scale(a: Poly, k: int) -> Poly:
    return {key: value * k for key, value in a.items() if value * k}


def mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            out = add(out, {tuple(sorted(ka + kb)): va * vb})
    return out


def render(p: Poly) -> str:
    if not p:
        return "0"
    terms = sorted(p.items(), key=lambda kv: (-len(kv[0]), kv[0]))
    out = ""
    for key, value in terms:
        body = "*".join(key)
        magnitude = abs(value)
        term = body if (magnitude == 1 and body) else (f"{magnitude}*{body}" if body
                                                       else str(magnitude))
        if not out:
            out = term if value > 0 else f"-{term}"
        else:
            out += f" + {term}" if value > 0 else f" - {term}"
    return out


def _loop_range(loop: Node, text) -> tuple[str, Poly, Poly] | None:
    """(counter, first value, last value) of a canonical counting ``for`` loop."""
    found = counting_loop(loop.stmt, text)
    if found is None:
        return None
    var, first_text, op, bound_text = found
    try:
        first, bound = poly(first_text), poly(bound_text)
    except _NotPoly:
        return None
    last = bound if op == "<=" else add(bound, {(): -1})
    return var, first, last


def host_section(anchor: Node, name: str, text, aliases: frozenset = frozenset()
                 ) -> str | None:
    """``[lo:len]`` of the elements of ``name`` the host reads inside ``anchor``, or None."""
    sections = host_sections([anchor], name, text, limit=1, aliases=aliases)
    return sections[0] if sections else None


def host_sections(anchors: list[Node], name: str, text, limit: int = 6,
                  aliases: frozenset = frozenset()) -> list[str] | None:
    """The distinct ``[lo:len]`` sections of ``name`` the host reads inside ``anchors`` (at
    most ``limit``; one directive each, as OpenMP allows one section of an array per
    directive), or None when some access cannot be bounded, is a write, or goes through a
    call."""
    ranges: list[tuple[Poly, Poly]] = []
    for anchor in anchors:
        for node in anchor.walk():
            for event in node.events + node.cond + node.step:
                if isinstance(event, CallEvent):
                    return None
                if isinstance(event, Access) and event.name != name and event.name in aliases:
                    return None  # read through another pointer to the same storage
                if not isinstance(event, Access) or event.side != "H" or event.name != name:
                    continue
                if event.writes or event.ref is None or len(event.ref.subscripts) != 1:
                    return None
                found = _ref_range(event.ref.subscripts[0].text, node, anchor, text)
                if found is None:
                    return None
                if found not in ranges:
                    ranges.append(found)
    if not ranges or len(ranges) > limit:
        return None
    variables = {v for low, high in ranges for atom in atoms_of(low) | atoms_of(high)
                 for v in re.findall(r"[A-Za-z_]\w*", atom)}
    texts = [text(a.stmt) for a in anchors if a.stmt is not None]
    if any(assigned_in(v, t) for v in variables for t in texts):
        return None  # the bounds change while the statements run: the copy cannot go first
    out = []
    for low, high in ranges:
        length = add(add(high, scale(low, -1)), {(): 1})
        out.append(f"[{render(low)}:{render(length)}]")
    return out


def assigned_in(variable: str, text: str) -> bool:
    """Whether ``text`` may assign or declare ``variable`` (conservative, textual)."""
    text = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|/\*.*?\*/|//[^\n]*', " ", text,
                  flags=re.S)
    v = re.escape(variable)
    patterns = (rf"(?<![\w.>]){v}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)", rf"(?:\+\+|--)\s*{v}\b",
                rf"(?<![\w.>]){v}\s*(?:\+\+|--)", rf"&\s*{v}\b",
                rf"\b(?:int|long|short|char|unsigned|signed|size_t|ptrdiff_t|auto|double|float)"
                rf"\b[^;(){{}}]*(?<![\w.>]){v}\b")
    return any(re.search(p, text) for p in patterns)


def _ref_range(index: str, node: Node, anchor: Node, text):
    try:
        value = poly(index)
    except _NotPoly:
        return None
    low, high = value, value
    walker = node
    while walker is not None:
        if walker.kind == "loop" and walker.loop_kind in LOOP_KINDS:
            bounds = _loop_range(walker, text)
            counters = _counters(walker)
            if bounds is None:
                if any(c in atoms_of(value) for c in counters):
                    return None
            else:
                var, first, last = bounds
                low, ok_low = _substitute(low, var, first)
                high, ok_high = _substitute(high, var, last)
                if not (ok_low and ok_high):
                    return None
        if walker is anchor:
            break
        walker = walker.parent
    return low, high


def _counters(loop: Node) -> set[str]:
    stmt = loop.stmt
    names = set()
    if stmt is not None and stmt.step is not None:
        names |= set(re.findall(r"[A-Za-z_]\w*", stmt.step.text))
    return names


def atoms_of(p: Poly) -> set[str]:
    return {atom for key in p for atom in key}


def _substitute(p: Poly, var: str, value: Poly) -> tuple[Poly, bool]:
    """Replace ``var`` (which must appear linearly with a non-negative coefficient)."""
    out: Poly = {}
    for key, coeff in p.items():
        count = key.count(var)
        if count == 0:
            out = add(out, {key: coeff})
            continue
        if count > 1 or coeff < 0:
            return p, False
        rest = tuple(a for a in key if a != var)
        out = add(out, mul({rest: coeff}, value))
    return out, True
