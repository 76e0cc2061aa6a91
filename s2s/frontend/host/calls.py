"""Calls in host code: the call sites of a statement (callee, arguments, spans) from the tree.
"""

from __future__ import annotations

from dataclasses import replace

from s2s.frontend.core.fast_cursor import children, cursor_type, is_attribute
from s2s.frontend.core.toolchain import is_tool_header
from s2s.frontend.host.callees import pointer_targets
from s2s.frontend.host.tree import (
    CALL_SCAN_SKIP,
    LAUNCH_CONFIG,
    HostTree,
    binary_operator_name,
    cursor_expr,
)
from s2s.model.host import CallSite

# --------------------------------------------------------------------------------------------
# Calls.

def _call_site(tree: HostTree, i: int, with_args: bool = True) -> CallSite | None:
    cursor = tree.nodes[i].cursor
    name = cursor.spelling
    if name == LAUNCH_CONFIG:
        return None
    ref = cursor.referenced
    ref_kind = ref.kind.name if ref is not None else None
    if ref_kind in ("CONSTRUCTOR", "CONVERSION_FUNCTION") and _implicit_call(tree, i):
        return None
    if not name and ref is not None:
        name = ref.spelling
    targets = ()
    if ref_kind == "VAR_DECL":
        targets = pointer_targets(tree, i) or ()
        name = targets[0] if len(targets) == 1 else name
    kids = tree.children[i]
    skip = 0
    if (not name or name == "operator()") and kids:
        # Dependent calls (templates) have no name; a functor or lambda call is named by
        # its object (``l(3)``), not ``operator()``, and the object is not an argument.
        if not name and tree.kinds[kids[0]] == "TYPE_REF":
            return None  # ``T(1.5)`` in a template: a functional cast, not a call
        callee = callee_name(tree.ctx.index.text(*tree.extent(kids[0])))
        if not callee:
            # Inside a macro expansion the callee has no text of its own: use what it names.
            target = tree.nodes[kids[0]].cursor.referenced
            callee = target.spelling if target is not None else ""
        skip = 1 if name else 0
        name = callee or name
    if not name:
        return None
    args = []
    template = tree.templates[i]
    for arg in list(cursor.get_arguments())[skip:] if with_args else ():
        expr = cursor_expr(tree.ctx, arg, template)
        if expr.span.start == expr.span.end == 0:
            continue  # a default argument: it has no location at the call
        args.append(expr)
    return CallSite(name, tuple(args), tree.span(i), targets if len(targets) > 1 else (),
                    noreturn=ref_kind in _NORETURN_KINDS and _never_returns(tree, ref),
                    system=_declared_in_system_header(ref))


#: the operators whose later operands may not run: ``a && b``, ``a || b``, ``c ? x : y``
_SHORT_CIRCUIT = frozenset({"LAnd", "LOr"})


def _conditional(tree: HostTree, i: int, root: int) -> bool:
    """Whether node ``i`` (inside the expression ``root``) may be skipped while ``root``
    runs: an operand after the first of ``&&``, ``||`` or ``?:`` on its way up (a node's
    first child is the node after it)."""
    child, parent = i, tree.parent[i]
    while child != root and parent >= 0:
        kind = tree.kinds[parent]
        if child != parent + 1 and (kind == "CONDITIONAL_OPERATOR" or kind == "BINARY_OPERATOR" and
                          binary_operator_name(tree.nodes[parent].cursor) in _SHORT_CIRCUIT):
            return True
        child, parent = parent, tree.parent[parent]
    return False


def _never_returns(tree: HostTree, function) -> bool:
    known = tree.noreturn.get(function)
    if known is None:
        known = tree.noreturn[function] = declared_noreturn(function)
    return known


_NORETURN_KINDS = frozenset({"FUNCTION_DECL", "CXX_METHOD"})
#: the attribute's token, by spelling: ``__attribute__((noreturn))`` (also ``__noreturn__``),
#: C11's ``_Noreturn`` (``noreturn`` through <stdnoreturn.h>), C++'s ``[[noreturn]]``
_NORETURN_TOKENS = frozenset({"noreturn", "__noreturn__", "_Noreturn"})


def declared_noreturn(function) -> bool:
    """Whether the declaration ``function`` (a call's callee) says it never returns. The
    GNU attribute is part of the function's type (clang prints it after the parameters,
    also on a redeclaration without it, a definition included: :func:`_type_says_noreturn`); ``_Noreturn`` and
    ``[[noreturn]]`` are attributes of the declaration (inherited by its redeclarations),
    which libclang exposes as an unexposed attribute whose token names it."""
    if _type_says_noreturn(cursor_type(function).spelling):
        return True
    return any(is_attribute(child) and any(token.spelling in _NORETURN_TOKENS
                                           for token in child.get_tokens())
               for child in children(function))


def _declared_in_system_header(ref) -> bool:
    """Whether the called function is a library's: declared in a system header, or in the
    headers s2s adds to the parse. A call through a variable is not (the variable is the
    program's)."""
    if ref is None or ref.kind.name in ("VAR_DECL", "PARM_DECL", "FIELD_DECL"):
        return False
    location = ref.location
    if location.is_in_system_header:
        return True
    file = location.file
    return file is not None and is_tool_header(file.name)


def _implicit_call(tree: HostTree, i: int) -> bool:
    """An implicit constructor or conversion: default construction, copy, conversion.

    Such a call either has no argument list of its own (``C c;``) or shares its extent with
    the expression it converts (``D d = 3;``, a by-value argument).
    """
    start, end = tree.extent(i)
    text = tree.ctx.source[start:end]
    if not text or (b"(" not in text and b"{" not in text):
        return True
    return any(tree.extent(k) == (start, end) for k in tree.children[i])


def callee_name(text: str) -> str:
    """``tk`` from ``tk``, ``ns::f<T>`` -> ``f``, ``obj.m`` -> ``m`` (dependent calls)."""
    text = text.split("<", 1)[0].strip()
    for sep in ("->", ".", "::"):
        text = text.rsplit(sep, 1)[-1]
    return text.strip()


def call_sites(tree: HostTree, roots, with_args: bool = True) -> tuple[CallSite, ...]:
    """Calls in the expression subtrees ``roots``, in pre-order; lambda bodies and local
    classes are skipped (their calls do not run here). Without ``with_args`` each site's
    arguments are left out (``s2s inspect``'s tables print the callees only: the arguments'
    cursors, extents and texts were a tenth of the 1 MB CUDA file's extraction, issue 30)."""
    out = []
    kinds, end = tree.kinds, tree.end
    for root in roots:
        j = root
        stop = end[root]
        while j < stop:
            kind = kinds[j]
            if kind in CALL_SCAN_SKIP:
                j = end[j]
                continue
            if kind == "CALL_EXPR":
                site = _call_site(tree, j, with_args)
                if site is not None:
                    if _conditional(tree, j, root):
                        site = replace(site, conditional=True)
                    out.append(site)
            j += 1
    return tuple(out)


_NORETURN_TYPE = " __attribute__((noreturn))"


def _type_says_noreturn(spelling: str) -> bool:
    """Whether clang's spelling of a function type carries the noreturn bit of the function
    itself: printed after the parameter list, outside every parenthesis (before a method's
    qualifiers and an exception specification: ``void (int) __attribute__((noreturn))
    noexcept(true)``); one inside them belongs to a parameter's function pointer type."""
    at = spelling.find(_NORETURN_TYPE)
    while at >= 0:
        before = spelling[:at]
        if before.count("(") == before.count(")"):
            return True
        at = spelling.find(_NORETURN_TYPE, at + 1)
    return False
