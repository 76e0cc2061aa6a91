"""An integer expression as its value reads, from the AST: integral casts taken off.

``npix = (std::size_t)width * height;`` and a loop nest counting ``y < height``, ``x <
width`` speak of the same number of elements; the text ``(std::size_t)width * height``
does not say so to a comparison of polynomials (the cast is spelled in any of a dozen
ways: ``(size_t)``, ``static_cast<long>(...)``, ``std::int64_t(...)``, a typedef of the
program's own). Read from the tree, a cast between integer types is one node whose
operand is the value: :func:`integral_text` renders the expression without those casts,
each operand parenthesized as the tree groups it, so that :mod:`s2s.analysis.polynomial`
compares it by value. A conversion changes the value only where the program overflows, the
same assumption every element count of the analyses makes.

Only what a polynomial holds is rendered: integer variables, integer literals, ``+ - * / %``
and unary minus, with every node of integer type (a ``double`` operand, a call, a member or
a conditional make the whole expression None: the caller keeps the text as written). Names
and literals come from the cursors, never the text, so a value written through a macro
(``size_t c = IDX(i, j, ny);``) is rendered as it expands.
"""

from __future__ import annotations

import re

from s2s.frontend.cuda.kernel_body import evaluate_cursor
from s2s.frontend.host.tree import HostTree, unary_kind

#: canonical integer type kinds of a count or an index (not ``char``, ``bool``, enums)
INTEGER_KINDS = frozenset({"SHORT", "USHORT", "INT", "UINT", "LONG", "ULONG", "LONGLONG",
                           "ULONGLONG"})
#: casts between integer types (an implicit conversion is an ``UNEXPOSED_EXPR``)
_CASTS = frozenset({"CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                    "UNEXPOSED_EXPR"})
_OPERATORS = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Rem": "%"}
_MINUS = 8  # CXUnaryOperator_Minus
_EXPRESSION_KINDS = frozenset({"DECL_REF_EXPR", "INTEGER_LITERAL", "PAREN_EXPR",
                               "BINARY_OPERATOR", "UNARY_OPERATOR"}) | _CASTS
_MAX_NODES = 256  # a longer value is no element count worth comparing


def integral_text(tree: HostTree, i: int) -> str | None:
    """The integer expression at node ``i`` rendered without its integral casts (module
    doc), or None when it holds anything else."""
    if tree.end[i] - i > _MAX_NODES:
        return None
    return _render(tree, i)


def _integer(tree: HostTree, i: int) -> bool:
    return tree.nodes[i].cursor.type.get_canonical().kind.name in INTEGER_KINDS


def _single(text: str) -> bool:
    """A name, a number, or one parenthesized group: nothing to bracket again."""
    if re.fullmatch(r"\w+", text):
        return True
    depth = 0
    for index, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return index == len(text) - 1 and char == ")"
    return False


def _render(tree: HostTree, i: int) -> str | None:
    """Node ``i`` rendered (bounded: at most ``_MAX_NODES`` nodes deep, checked above)."""
    kind = tree.kinds[i]
    if kind not in _EXPRESSION_KINDS or not _integer(tree, i):
        return None
    kids = [k for k in tree.children[i] if tree.kinds[k] not in ("TYPE_REF", "NAMESPACE_REF",
                                                                  "TEMPLATE_REF")]
    if kind == "DECL_REF_EXPR":
        ref = tree.nodes[i].cursor.referenced
        return ref.spelling if ref is not None and \
            ref.kind.name in ("VAR_DECL", "PARM_DECL") else None
    if kind == "INTEGER_LITERAL":
        value = evaluate_cursor(tree.nodes[i].cursor)
        return str(value) if isinstance(value, int) and value >= 0 else None
    if len(kids) == 1 and kind in _CASTS | {"PAREN_EXPR"}:
        inner = _render(tree, kids[0])
        return inner if inner is None or _single(inner) else f"({inner})"
    if kind == "UNARY_OPERATOR" and len(kids) == 1:
        if unary_kind(tree.nodes[i].cursor) != _MINUS:
            return None
        inner = _render(tree, kids[0])
        return None if inner is None else f"(-{inner})"
    if kind == "BINARY_OPERATOR" and len(kids) == 2:
        op = _OPERATORS.get(tree.nodes[i].cursor.binary_operator.name)
        left, right = _render(tree, kids[0]), _render(tree, kids[1])
        if op is None or left is None or right is None:
            return None
        return f"{left} {op} {right}"
    return None
