"""Allocating helpers defined in a project header and called from the main file.

Real programs keep their allocation helpers in a header every program of the suite includes:
the Parallel Research Kernels define ``void *prk_malloc(size_t bytes)`` (``posix_memalign``
into a local, ``return ptr;``) in ``prk_util.h`` and write ``double *A = prk_malloc(bytes);``
in each kernel's file. The main-file walk never enters the header, so such a call was no
allocation: the OpenMP pass knew no count for ``A`` and mapped each construct on its own.

Here the helpers the main file calls are summarized from the header's own cursors, as the
including file's parse has them (the header need not parse on its own; its ``#if`` branches
are those the includer selects), with the very summaries a helper in the main file gets
(:func:`s2s.frontend.host.allocators.returned_allocations`). Only headers that define a
function the main file's host code calls, returning a pointer, are walked.
"""

from __future__ import annotations

import os

from s2s.bounded_read import read_at_most
from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.fast_cursor import MAIN_RANGE
from s2s.frontend.host.tree import ALLOC_FUNCS, host_tree

#: Largest project header read for its helpers.
MAX_HEADER_BYTES = 8 * 1024 * 1024


def header_helper_names(ctx: ExtractContext) -> dict[str, set[str]]:
    """Per project header (as libclang names it), the functions it defines that the main
    file's host code calls and that return a pointer."""
    headers = set(ctx.project_headers())
    found: dict[str, set[str]] = {}
    if not headers:     # (no header to define one: the scan of every call is not needed;
        return found    # 7% of the 1 MB CUDA file's extraction, issue 30)
    tree = host_tree(ctx)
    for i, kind in enumerate(tree.kinds):
        if kind != "CALL_EXPR" or tree.nodes[i].function is None:
            continue
        cursor = tree.nodes[i].cursor
        if cursor.spelling in ALLOC_FUNCS or \
                cursor.type.get_canonical().kind.name != "POINTER":
            continue
        callee = cursor.referenced
        definition = callee.get_definition() if callee is not None else None
        if definition is None or definition.kind.name != "FUNCTION_DECL":
            continue
        file = definition.location.file
        if file is not None and file.name in headers:
            found.setdefault(file.name, set()).add(cursor.spelling)
    return found


def header_allocating_helpers(ctx: ExtractContext, summarize) -> dict:
    """The allocating-helper summaries (``summarize(tree)``, name -> summary) of the helpers
    the main file calls from project headers; the header's walk is dropped afterwards."""
    out: dict = {}
    if ctx.included:
        return out                  # a header's own model: its includer's helpers are not its
    for name, called in header_helper_names(ctx).items():
        try:
            with open(name, "rb") as handle:
                text = read_at_most(handle, MAX_HEADER_BYTES)
        except OSError:
            continue
        if len(text) > MAX_HEADER_BYTES:
            continue
        saved = getattr(ctx.unit, MAIN_RANGE, None)
        header = ExtractContext(name, text, ctx.unit, ctx.side, included=True,
                                span_path=os.path.normpath(name))
        try:
            summaries = summarize(host_tree(header))
        finally:
            header.release()
            setattr(ctx.unit, MAIN_RANGE, saved)    # the walk set the header's range
        out.update({n: s for n, s in summaries.items() if n in called})
    return out
