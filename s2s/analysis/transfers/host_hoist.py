"""Declarations the pools need, moved up to where the pools are made (issue 19).

The pools are allocated where the region's first buffer is (their offsets are computed
there), so a buffer whose size uses a name declared later stays out of them::

    cudaMalloc(&d_in, n * sizeof(float));                     // the pools are made here
    cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const int blocks = (n + 127) / 128;                        // d_partial's size needs this
    cudaMalloc(&d_partial, blocks * sizeof(float));

Moving the declaration up, before the first allocation, computes the same values when it
commutes with every statement it passes: :func:`hoistable` says when (from the AST's
variable mentions, :class:`~s2s.model.host_facts.VarUse`). The declaration must be a plain
one (no call, nothing in a macro) whose role in the region is neutral (it touches no
buffer), the names it declares are not mentioned by the statements it passes (they would
mean another variable there), and the variables it reads are locals of the function that
those statements do not change: mentioned there only as arguments of CUDA API calls and allocators
(which take sizes by value) or read outside calls and declarations (a declaration could bind a
reference), and, when the passed statements call anything else, never address-taken in the
function (no call can reach them through a pointer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from s2s.model import SourceSpan
from s2s.model.host_facts import DECLARING_ROLES, VarUse

#: allocators whose arguments are sizes taken by value
BY_VALUE = frozenset({"malloc", "calloc", "aligned_alloc"})
#: a declarator's own mention, not a read


def hoistable(statements: Sequence, j: int, start: int, function_span: SourceSpan,
              uses: Callable[[SourceSpan], list[VarUse]]) -> bool:
    """Whether region statement ``j`` (a declaration) may move before statement ``start``."""
    entry = statements[j]
    stmt = entry.stmt
    if stmt.kind != "decl" or entry.role != "host" or entry.op is not None or stmt.span.macro is not None \
            or any(s.calls for s in stmt.walk()) or not start < j:
        return False
    mine = uses(stmt.span)
    declared = {u.name for u in mine if u.role in DECLARING_ROLES}
    read = {u.name: u.decl for u in mine if u.role not in DECLARING_ROLES}
    inside = range(function_span.start, function_span.end)
    if any(decl not in inside for decl in read.values()):
        return False   # a global or a member: any call may change it
    passed = [u for k in range(start, j) for u in uses(statements[k].stmt.span)]
    declarations = [s.span for k in range(start, j) for s in statements[k].stmt.walk() if s.kind == "decl"]
    for use in passed:
        if use.name in declared:
            return False
        if use.name in read and not _harmless(use, declarations):
            return False
    calls = any(s.calls for k in range(start, j) for s in statements[k].stmt.walk())
    if calls:
        earlier = [u for u in uses(function_span) if u.span.start < stmt.span.start]
        if any(u.name in read and u.role == "address" for u in earlier):
            return False
    return True


def _harmless(use: VarUse, declarations: list[SourceSpan]) -> bool:
    """A mention that cannot change the variable: an argument of a CUDA API call or an
    allocator (sizes go by value), or a read outside any declaration (a declaration could bind a reference)."""
    if use.role in ("argument", "read") and ((use.call or "").startswith("cuda") or use.call in BY_VALUE):
        return True
    return use.role == "read" and use.call is None and not any(d.contains(use.span) for d in declarations)
