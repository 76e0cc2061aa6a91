"""Writes of struct and class members in host functions, from the libclang AST
(:class:`s2s.model.host_facts.MemberWrite`, issue 28).

A write is a ``MEMBER_REF_EXPR`` whose nearest enclosing expression that is not a cast or
parentheses assigns it: the left side of ``=`` or of a compound assignment, the operand of
``++``/``--`` or of ``&``, or the object of an assigning operator call (``s.v = w`` on a
class with ``operator=``). Operator kinds come from libclang, not from the text, so a write
inside a macro argument or a macro's expansion is found where the macro is used; ``x.f[i] =
e`` writes an element of ``x.f`` and is no write of the member. A whole struct given a value
(``mesh = other``, ``memcpy(&mesh, ...)``) writes each of its members
(:mod:`s2s.frontend.host.struct_writes`).
"""

from __future__ import annotations

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.host.facts import ASSIGNMENTS, THROUGH, unary_kind
from s2s.frontend.host.struct_writes import variable_below, whole_struct_writes
from s2s.frontend.host.tree import HostTree, cuda_role, host_tree, is_host_code
from s2s.model.host_facts import MemberWrite

#: CXUnaryOperatorKind (clang-c/Index.h): ++/-- (post and pre) and &
UNARY_WRITES = {1: "assign", 2: "assign", 3: "assign", 4: "assign", 5: "address"}
#: the nodes that may write a whole struct (frontend.host.struct_writes)
WHOLE_WRITERS = frozenset({"BINARY_OPERATOR", "CALL_EXPR"})
#: operator calls that assign their first operand (C++ classes)
OPERATOR_WRITES = frozenset(f"operator{op}" for op in (
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"))


def extract_member_writes(ctx: ExtractContext) -> tuple[MemberWrite, ...]:
    """Every member write in the file's host functions, in order (module doc)."""
    tree = host_tree(ctx)
    out: list[MemberWrite] = []
    i, count = 0, len(tree.nodes)
    while i < count:
        node = tree.nodes[i]
        if tree.kinds[i] in FUNCTION_KINDS and is_host_code(cuda_role(node.cursor)):
            function = node.cursor.spelling
            for j in range(i + 1, tree.end[i]):
                if tree.kinds[j] in WHOLE_WRITERS:
                    out.extend(whole_struct_writes(tree, j, function))
                elif tree.kinds[j] == "MEMBER_REF_EXPR":
                    found = _write(tree, j)
                    if found is not None:
                        role, writer, value = found
                        out.append(MemberWrite(tree.nodes[j].cursor.spelling, role,
                                               tree.span(j), function, tree.span(writer),
                                               _base(tree, j), value))
            i = tree.end[i]
        else:
            i += 1
    return tuple(out)


def _write(tree: HostTree, i: int):
    """(role, writing node, assigned value or None) when the member expression ``i`` is
    written, else None."""
    j, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in THROUGH:
        j, p = p, tree.parent[p]
    if p < 0:
        return None
    kind, kids = tree.kinds[p], tree.children[p]
    if kind == "UNARY_OPERATOR":
        role = UNARY_WRITES.get(unary_kind(tree.nodes[p].cursor))
        return None if role is None else (role, p, None)
    if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR"):
        op = tree.nodes[p].cursor.binary_operator.name
        if op in ASSIGNMENTS and kids and kids[0] == j:
            value = tree.expr(kids[1]) if op == "Assign" and len(kids) == 2 else None
            return "assign", p, value
        return None
    if kind == "CALL_EXPR" and tree.nodes[p].cursor.spelling in OPERATOR_WRITES:
        operands = [k for k in kids if tree.extent(k)[1] > tree.extent(k)[0]]
        if operands and operands[0] == j:
            return "assign", p, None
    return None


def _base(tree: HostTree, i: int) -> str | None:
    """The variable a member access starts at (``x`` in ``x.f``, ``p`` in ``p->f``)."""
    kids = tree.children[i]
    if not kids:
        return None                      # an implicit ``this``
    return variable_below(tree, kids[0], THROUGH)
