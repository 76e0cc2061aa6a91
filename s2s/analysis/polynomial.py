"""Integer index expressions as polynomials over the program's variables.

Array sections, loop bounds and element counts are compared by value, not by spelling:
``(size_t)rows * cols`` and ``cols*rows`` are the same count. Anything that is not a sum of
products of variables and integer constants (a division, a call) is an opaque atom or
raises :class:`NotPoly`.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re

Poly = dict  # tuple of sorted atom names -> int coefficient

_CAST = re.compile(r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:size_t|ptrdiff_t|int|long|"
                   r"long\s+long|unsigned|short)\s*\)")
_SAFE = re.compile(r"^[\w\s+\-*/%().]*$")


class NotPoly(Exception):
    pass


_MEMBER_PATH = re.compile(r"\b[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)+")


def _sanitize(match) -> str:
    return re.sub(r"\s+", "", match.group(0)).replace("->", "__arrow__").replace(".", "__dot__")


# C names that are Python keywords (``in``, ``is``, ``lambda`` ...) would not parse: renamed
# for the parse, back in every atom.
_KEYWORD = re.compile(r"\b(?:" + "|".join(keyword.kwlist) + r")\b")


def _unsanitize(name: str) -> str:
    name = name.replace("__arrow__", "->").replace("__dot__", ".")
    return re.sub(r"__kw_(\w+?)__", r"\1", name) if "__kw_" in name else name


def poly(text: str) -> Poly:
    """``2*n - 1`` -> {('n',): 2, (): -1}; raises NotPoly for what is not a polynomial.
    Struct members (``d->numNode``, ``p.n``) are variables like any other.

    Memoised by text (a big program asks for the same few hundred texts hundreds of
    thousands of times, each a Python parse); every call gets its own dict."""
    got = _poly_of(text)
    if isinstance(got, NotPoly):
        raise NotPoly(*got.args)
    return dict(got)


@functools.lru_cache(maxsize=65536)
def _poly_of(text: str) -> tuple | NotPoly:
    try:
        return tuple(_parse_poly(text).items())
    except NotPoly as why:
        return NotPoly(*why.args)  # without the traceback's frames


def _parse_poly(text: str) -> Poly:
    text = _CAST.sub("", text)  # (size_t)n: the same value for the sizes it is used on
    text = _MEMBER_PATH.sub(_sanitize, text)
    text = _KEYWORD.sub(lambda m: f"__kw_{m.group(0)}__", text)
    if not _SAFE.match(text):
        raise NotPoly(text)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        raise NotPoly(text) from err
    return _poly(tree, text)


def _poly(node, text: str) -> Poly:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return {(): node.value} if node.value else {}
    if isinstance(node, ast.Name):
        return {(_unsanitize(node.id),): 1}
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
        atom = "(" + _unsanitize(ast.unparse(node).replace("//", "/")) + ")"
        return {(atom,): 1}
    raise NotPoly(text)


def same_value(a: str, b: str) -> bool:
    """Whether two integer expressions are the same polynomial (text equality otherwise)."""
    try:
        return poly(a) == poly(b)
    except NotPoly:
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


#: string and character literals and comments: no assignment inside them counts
_NOT_CODE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|/\*.*?\*/|//[^\n]*', re.S)


@functools.lru_cache(maxsize=65536)
def assigned_in(variable: str, text: str, declarations: bool = True) -> bool:
    """Whether ``text`` may assign or declare ``variable`` (conservative, textual); with
    ``declarations`` False, a declaration (which may only shadow it) does not count."""
    text = _NOT_CODE.sub(" ", text)
    v = re.escape(variable)
    patterns = [rf"(?<![\w.>]){v}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)", rf"(?:\+\+|--)\s*{v}\b",
                rf"(?<![\w.>]){v}\s*(?:\+\+|--)", rf"(?<!&)&(?!&)\s*{v}\b"]
    if any(re.search(p, text) for p in patterns):
        return True
    # declared: a declarator's own name, not a name its initializer reads
    # (``double pivot = m[k * size + k];`` declares pivot, not k)
    return declarations and variable in declared_names(text)


_PATH = r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*"
_ASSIGNS = (re.compile(rf"(?<![\w.>])({_PATH})\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"),
            re.compile(rf"(?:\+\+|--)\s*({_PATH})"),
            re.compile(rf"(?<![\w.>])({_PATH})\s*(?:\+\+|--)"),
            re.compile(rf"(?<!&)&(?!&)\s*({_PATH})"))
_DECLARED = re.compile(r"\b(?:int|long|short|char|unsigned|signed|size_t|ptrdiff_t|auto|double|"
                       r"float|bool)\b")
_WORD = re.compile(r"[A-Za-z_]\w*")
_TYPE_WORDS = frozenset("int long short char unsigned signed size_t ptrdiff_t auto double float "
                        "bool const volatile static register restrict".split())


@functools.lru_cache(maxsize=16384)
def declared_names(text: str) -> frozenset[str]:
    """The names declared in ``text`` with a built-in type: the first identifier of each
    declarator (``int nd = n < m ? n : m, k;`` declares ``nd`` and ``k``, not ``n``). A cast
    or ``sizeof(int)`` declares nothing."""
    text = _NOT_CODE.sub(" ", text)
    names = set()
    for start in _DECLARED.finditer(text):
        depth, position, declarator = 0, start.end(), True
        while position < len(text):
            char = text[position]
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif char == ";" and depth == 0:
                break
            elif char == "," and depth == 0:
                declarator = True
            elif char == "=" and depth == 0:
                declarator = False
            elif declarator and depth == 0 and (char.isalpha() or char == "_"):
                word = _WORD.match(text, position).group(0)
                if word not in _TYPE_WORDS:
                    names.add(word)
                    declarator = False
                position += len(word)
                continue
            position += 1
    return frozenset(names)


@functools.lru_cache(maxsize=16384)
def assigned_names(text: str) -> frozenset[str]:
    """Every variable ``text`` may assign, declare or take the address of, by its root name
    (``d->n = 3`` gives ``d``): the over-approximation :func:`assigned_in` answers one name
    at a time. A section such as ``[m*r:m]`` means something else once one of its
    variables has changed, so dataflow facts that mention them are forgotten there.
    (Kept by text, least recently asked first: the planner asks once per statement, and
    the statements of a program repeat: loop headers, ``++i``, the same update in many
    kernels.)"""
    text = _NOT_CODE.sub(" ", text)
    names = set()
    for pattern in _ASSIGNS:
        names.update(re.match(r"[A-Za-z_]\w*", m.group(1)).group(0)
                     for m in pattern.finditer(text))
    return frozenset(names) | declared_names(text)


def mentions(section: str, names: frozenset) -> bool:
    """Whether the text ``section`` uses one of ``names`` (as a variable or a member path's
    root)."""
    return not names.isdisjoint(_variables(section))


def mentioned(sections: frozenset, names: frozenset) -> bool:
    """Whether one of ``sections`` uses one of ``names``."""
    return not names.isdisjoint(_all_variables(sections))


@functools.lru_cache(maxsize=4096)
def _all_variables(sections: frozenset) -> frozenset[str]:
    return frozenset().union(*(_variables(s) for s in sections))


@functools.lru_cache(maxsize=4096)
def _variables(section: str) -> frozenset[str]:
    return frozenset(re.findall(r"(?<![\w.>])[A-Za-z_]\w*", section))


def expand(text: str, definitions: dict[str, str], rounds: int = 4) -> str:
    """``text`` with variables replaced by their single definitions (``nel`` ->
    ``((size_t)rows * cols)``), a few levels deep."""
    for _ in range(rounds):
        replaced = re.sub(r"(?<![\w.>])[A-Za-z_]\w*\b",  # not a member name
                          lambda m: f"({definitions[m.group(0)]})" if m.group(0) in definitions
                          else m.group(0), text)
        if replaced == text:
            break
        text = replaced
    return text


def substitute(p: Poly, var: str, value: Poly) -> tuple[Poly, bool]:
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


def disjoint(a: str, b: str) -> bool:
    """Whether sections ``[lo:len]`` ``a`` and ``b`` certainly share no element: one ends
    before the other starts by a constant margin (``[0:1]`` and ``[1:n-2]``; ``[n-1:1]`` and
    ``[1:n-2]``)."""
    try:
        (lo_a, len_a), (lo_b, len_b) = _bounds(a), _bounds(b)
    except NotPoly:
        return False
    for gap in (add(lo_b, scale(add(lo_a, len_a), -1)), add(lo_a, scale(add(lo_b, len_b), -1))):
        if set(gap) <= {()} and gap.get((), 0) >= 0:
            return True
    return False


def merge_adjacent(sections) -> list[str]:
    """``sections`` with every two that touch end to start joined (``[0:1]``, ``[1:n - 2]``
    and ``[n - 1:1]`` are ``[0:n]``): one copy instead of several. Sections that are not
    polynomials stay as they are."""
    pieces = list(dict.fromkeys(sections))
    joined = True
    while joined:
        joined = False
        for a in pieces:
            for b in pieces:
                if a is b:
                    continue
                try:
                    (lo_a, len_a), (lo_b, len_b) = _bounds(a), _bounds(b)
                except NotPoly:
                    continue
                if add(lo_a, len_a) == lo_b:
                    merged = f"[{render(lo_a)}:{render(add(len_a, len_b))}]"
                    pieces = [merged] + [x for x in pieces if x not in (a, b)]
                    joined = True
                    break
            if joined:
                break
    return pieces


def intersection(a: str, b: str) -> str | None:
    """``[lo:len]`` of the elements in both sections ``a`` and ``b``, when their bounds
    differ by constants; None otherwise, or when the result is ``a`` itself (nothing to
    cut). Sections that share no element are :func:`disjoint`'s question."""
    try:
        (lo_a, len_a), (lo_b, len_b) = _bounds(a), _bounds(b)
    except NotPoly:
        return None
    low = _extreme(lo_a, lo_b, max)
    high = _extreme(add(lo_a, len_a), add(lo_b, len_b), min)
    if low is None or high is None or (low == lo_a and high == add(lo_a, len_a)):
        return None
    return f"[{render(low)}:{render(add(high, scale(low, -1)))}]"


def hull(sections) -> str | None:
    """The ``[lo:len]`` holding every one of ``sections``, when all their bounds differ by
    constants; None when one is not a polynomial section or two are not comparable."""
    low = high = None
    for section in sections:
        try:
            lo, length = _bounds(section)
        except NotPoly:
            return None
        hi = add(lo, length)
        low = lo if low is None else _extreme(low, lo, min)
        high = hi if high is None else _extreme(high, hi, max)
        if low is None or high is None:
            return None
    if low is None:
        return None
    return f"[{render(low)}:{render(add(high, scale(low, -1)))}]"


def _extreme(a: Poly, b: Poly, pick) -> Poly | None:
    """``pick`` (min or max) of two polynomials whose difference is a constant, else None."""
    gap = add(a, scale(b, -1))
    if set(gap) - {()}:
        return None
    return a if pick(gap.get((), 0), 0) == gap.get((), 0) else b


def _bounds(section: str) -> tuple[Poly, Poly]:
    inner = section.strip()
    if not (inner.startswith("[") and inner.endswith("]")) or inner.count(":") != 1:
        raise NotPoly(section)
    low, length = inner[1:-1].split(":")
    return poly(low), poly(length)


def trim(section: str, element: str) -> str | None:
    """``section`` without ``element`` when the element is its first or last one
    (``[0:n]`` minus ``[0:1]`` is ``[1:n - 1]``); None when the section is that element
    (nothing is left: ``[1:0]`` would be no OpenMP section); otherwise ``section``
    unchanged."""
    try:
        (low, length), (at, one) = _bounds(section), _bounds(element)
    except NotPoly:
        return section
    if one != {(): 1}:
        return section
    if at == low and length == {(): 1}:
        return None
    if at == low:
        return f"[{render(add(low, {(): 1}))}:{render(add(length, {(): -1}))}]"
    if at == add(add(low, length), {(): -1}):
        return f"[{render(low)}:{render(add(length, {(): -1}))}]"
    return section


def subtract(whole: str, part: str, size: str | None = None) -> list[str] | None:
    """The elements of section ``whole`` outside section ``part``, as at most two sections
    (below and above ``part``), when the margins are constants; None when they are not.

    Sections are read inside an array of ``size`` elements starting at 0 (``size`` None:
    unknown): elements outside it are never legitimately accessed, so nothing lies below a
    ``part`` that starts at 0, or above one that ends at ``size``. The two pieces
    ``[lo_w, lo_p)`` and ``[lo_p + len_p, lo_w + len_w)`` hold every element of ``whole``
    outside ``part`` whatever the signs of the lengths (an empty ``part`` leaves them
    covering ``whole``), so the answer is sound for every value of the variables."""
    try:
        (low_w, len_w), (low_p, len_p) = _bounds(whole), _bounds(part)
        end = poly(size) if size is not None else None
    except NotPoly:
        return None
    pieces = []
    below = add(low_p, scale(low_w, -1))
    if low_p:  # nothing below 0
        if set(below) - {()}:
            return None
        if below.get((), 0) > 0:
            pieces.append(f"[{render(low_w)}:{below[()]}]")
    end_w, end_p = add(low_w, len_w), add(low_p, len_p)
    if end is None or end_p != end:  # nothing at or above the array's end
        above = add(end_w, scale(end_p, -1))
        if set(above) - {()}:
            return None
        if above.get((), 0) > 0:
            pieces.append(f"[{render(end_p)}:{above[()]}]")
    return pieces


def subtract_all(whole: str, parts, size: str | None = None) -> list[str]:
    """``whole`` minus every section of ``parts``: what may lie outside all of them (a piece
    that cannot be split by one of them stays as it is, which over-approximates)."""
    pieces = [whole]
    for part in parts:
        out = []
        for piece in pieces:
            rest = subtract(piece, part, size)
            out += [piece] if rest is None else rest
        pieces = out
    return pieces


def within(inner: str, outer: str, size: str | None = None) -> bool:
    """Whether every element of ``inner`` inside an array of ``size`` elements is in
    ``outer`` (see :func:`subtract`)."""
    return subtract(inner, outer, size) == []
