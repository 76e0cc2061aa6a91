"""Comparisons and counting-loop headers read from the AST (``Stmt.tests``, ``Stmt.header``).

The OpenMP analyses ask two questions of host statements: what an early exit proves
(``if (n < 4 || steps < 1) { usage(); return 1; }``: past it ``n >= 4``) and whether a ``for``
loop counts (``for (int i = a; i < b; i += 2)``). Both were answered by regular expressions
over the statement's text, which misread what the text hides: the precedence of ``||`` and
``&&`` (``a < 4 || b && c`` still proves ``a >= 4``), parentheses (``(i) < n``), several
declarators (``int i = 0, j = 0``). Here the operators come from libclang's cursors; the
operands are kept as their source text, which the analyses read as polynomials.

Anything the recognizers do not understand gives nothing (no test, no header): a comparison
whose operands do not lie in order inside it (a macro's expansion), an operator that is an
overloaded call, a step that is not a positive integer literal.
"""

from __future__ import annotations

from s2s.frontend.host.tree import HostTree, binary_operator_name, unary_kind
from s2s.model.host import Comparison, LoopHeader

_COMPARISONS = {"LT": "<", "LE": "<=", "GT": ">", "GE": ">="}
_TRANSPARENT = frozenset({"PAREN_EXPR", "UNEXPOSED_EXPR"})
#: clang-c's CXUnaryOperator_PostInc and CXUnaryOperator_PreInc
_INCREMENTS = frozenset({1, 3})


def _bare(tree: HostTree, i: int) -> int:
    """``i`` without parentheses and implicit conversions around it (one child each)."""
    while tree.kinds[i] in _TRANSPARENT and len(tree.children[i]) == 1:
        i = tree.children[i][0]
    return i


def _text(tree: HostTree, i: int) -> str:
    start, end = tree.extent(i)
    return tree.ctx.index.text(start, end)


def _operands(tree: HostTree, i: int) -> tuple[int, int] | None:
    """The two operands of the binary operator node ``i``, in source order inside it."""
    kids = tree.children[i]
    if len(kids) != 2:
        return None
    (start, end), (left_start, left_end), (right_start, right_end) = \
        tree.extent(i), tree.extent(kids[0]), tree.extent(kids[1])
    if not (start <= left_start < left_end <= right_start < right_end <= end):
        return None
    return kids[0], kids[1]


def _binary(tree: HostTree, i: int) -> str:
    return binary_operator_name(tree.nodes[i].cursor) \
        if tree.kinds[i] == "BINARY_OPERATOR" else ""


def comparison(tree: HostTree, i: int) -> Comparison | None:
    """``left op right`` of the relational comparison at node ``i`` (parentheses around it
    skipped), else None."""
    i = _bare(tree, i)
    op = _COMPARISONS.get(_binary(tree, i))
    operands = _operands(tree, i) if op else None
    if operands is None:
        return None
    return Comparison(_text(tree, operands[0]).strip(), op, _text(tree, operands[1]).strip())


def always_true(tree: HostTree, i: int) -> bool:
    """Whether condition node ``i`` is a literal that is true: ``1``, ``true`` (parentheses
    and implicit conversions around it skipped; a macro such as ``TRUE`` expands to one)."""
    i = _bare(tree, i)
    kind = tree.kinds[i]
    if kind == "CXX_BOOL_LITERAL_EXPR":
        return _text(tree, i).strip() == "true" or tree.nodes[i].cursor.spelling == "true"
    if kind != "INTEGER_LITERAL":
        return False
    tokens = [t.spelling for t in tree.nodes[i].cursor.get_tokens()]
    try:
        return len(tokens) == 1 and int(tokens[0].rstrip("uUlL"), 0) != 0
    except ValueError:
        return False


def disjunct_tests(tree: HostTree, cond: int) -> tuple[Comparison, ...]:
    """The comparisons among the operands of the top-level ``||`` chain of condition node
    ``cond`` (the condition itself when it is no ``||``), in source order."""
    pending, operands = [cond], []
    while pending:
        i = _bare(tree, pending.pop())
        if _binary(tree, i) == "LOr" and _operands(tree, i) is not None:
            pending.extend(reversed(tree.children[i]))
        else:
            operands.append(i)
    return tuple(c for c in (comparison(tree, i) for i in operands) if c is not None)


def loop_header(tree: HostTree, init: int | None, cond: int | None, step: int | None
                ) -> LoopHeader | None:
    """The :class:`LoopHeader` of ``for (init; cond; step)`` from the header's nodes."""
    if init is None or cond is None or step is None:
        return None
    start = _start(tree, init)
    test = comparison(tree, cond)
    by = _step(tree, step)
    if start is None or test is None or by is None or test.op not in ("<", "<="):
        return None
    counter, first = start
    stepped, amount = by
    left = _bare(tree, tree.children[_bare(tree, cond)][0])
    if stepped != counter or not _names(tree, left, counter):
        return None
    return LoopHeader(counter, first, test.op, test.right, amount)


def _start(tree: HostTree, i: int) -> tuple[str, str] | None:
    """(counter, first value) of ``int i = a`` (one declarator) or ``i = a``."""
    kind = tree.kinds[i]
    if kind == "DECL_STMT":
        kids = tree.children[i]
        if len(kids) != 1 or tree.kinds[kids[0]] != "VAR_DECL":
            return None
        i, kind = kids[0], "VAR_DECL"
    if kind == "VAR_DECL":
        values = [k for k in tree.children[i] if tree.kinds[k] not in
                  ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
        name = tree.nodes[i].cursor.spelling
        if len(values) != 1 or not name:
            return None
        return name, _text(tree, values[0]).strip()
    i = _bare(tree, i)
    operands = _operands(tree, i) if _binary(tree, i) == "Assign" else None
    if operands is None:
        return None
    target = _bare(tree, operands[0])
    if tree.kinds[target] != "DECL_REF_EXPR":
        return None
    return tree.nodes[target].cursor.spelling, _text(tree, operands[1]).strip()


def _step(tree: HostTree, i: int) -> tuple[str, int] | None:
    """(counter, step) of ``i++``, ``++i`` or ``i += c`` (``c`` a positive literal)."""
    i = _bare(tree, i)
    kind = tree.kinds[i]
    if kind == "UNARY_OPERATOR" and unary_kind(tree.nodes[i].cursor) in _INCREMENTS:
        target = _bare(tree, tree.children[i][0]) if tree.children[i] else None
        amount = 1
    elif kind == "COMPOUND_ASSIGNMENT_OPERATOR" and \
            binary_operator_name(tree.nodes[i].cursor) == "AddAssign" and _operands(tree, i):
        target, value = (_bare(tree, k) for k in tree.children[i])
        literal = _text(tree, value).strip()
        if tree.kinds[value] != "INTEGER_LITERAL" or not literal.isdigit() or \
                int(literal) < 1 or literal.startswith("0"):
            return None
        amount = int(literal)
    else:
        return None
    if target is None or tree.kinds[target] != "DECL_REF_EXPR":
        return None
    return tree.nodes[target].cursor.spelling, amount


def _names(tree: HostTree, i: int, name: str) -> bool:
    return tree.kinds[i] == "DECL_REF_EXPR" and tree.nodes[i].cursor.spelling == name
