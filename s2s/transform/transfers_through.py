"""``s2s transfers`` through calls of copy wrappers (issue 29, items 4 (b) and 6).

``static void upload(float *dst, const float *src, int count) { cudaMemcpy(dst, src, count *
sizeof(float), cudaMemcpyHostToDevice); }``, in the file or a project header: its call, a
statement of its own, is the copy at the call site, across the wrapper's parameters
(:mod:`s2s.transform.fuse_wrappers` binds them). The pass runs again on the file with those
calls inlined; where that rewrite changes the inlined copies (merged, moved), it is the pass's
output, the rewritten calls replaced by their copies' new text. Where it does not, the file's
own output stands and each wrapper gets a warning saying that its copies were followed to its
calls and why they stay (the reasons the pass gave on the inlined file), so a copy behind a
wrapper is never passed over in silence."""

from __future__ import annotations

from dataclasses import replace

from s2s.analysis.fuse.graph import error_check_helpers
from s2s.diagnostics import Diagnostic, Severity
from s2s.edits import location_at
from s2s.frontend.extract import host_helper_headers, load
from s2s.model.span import SpanIndex
from s2s.transform.alloc_helpers import alloc_helpers, alloc_sites
from s2s.transform.fuse_wrappers import (
    Work,
    call_sites,
    checking_macro,
    edits_back,
    inlined,
    inlined_regions,
    launch_wrappers,
    lines_as_written,
    wrapper_of,
)

WRAPPER_ID = "transfers-wrapper"
COPIES = ("memcpy", "memset")


def copy_wrappers(units: list[tuple[object, bytes]]) -> tuple[dict, dict]:
    """The copy wrappers of ``units`` (the file's model and its project headers', with their
    texts): void functions whose statements each make one runtime copy or check an error;
    and, for the other functions that copy, why they are not followed."""
    checks = frozenset().union(*(error_check_helpers(unit) for unit, _text in units))
    wrappers, refused = {}, {}
    for unit, text in units:
        for function in unit.functions:
            calls = [c for c in unit.in_function("api_calls", function.name)
                     if c.category in COPIES]
            if function.body is None or not calls or function.name == "main":
                continue
            works = [Work(c.name, c.args, c.span, None, _in_macro(c, function)) for c in calls]
            wrapper, why = wrapper_of(unit, text, function, works, checks, units[0][0].path)
            if wrapper is not None:
                wrappers[function.name] = (wrapper, function.span)
            elif why and _copies_a_callers_buffer(unit, function, calls):
                refused[function.name] = (why, function.span)
    return wrappers, refused


def _in_macro(call, function) -> str:
    """Why a copy written in a macro is not followed: only a copy in the argument of a
    checking macro that is a statement of its own (``CHECK(cudaMemcpy(d, h, n, k));``) is,
    its parameters bound where they are written (``VarUse.spelled``)."""
    if call.span.macro is None:
        return ""
    statement = next((s for s in function.body.children if s.span.start <= call.span.start < s.span.end),
                     None)
    if statement is not None and checking_macro(statement) and statement.span.start == call.span.start:
        return ""
    return f"its copy at line {call.span.line} is written in a macro"


def _copies_a_callers_buffer(unit, function, calls) -> bool:
    """``function`` allocates no device buffer and a copy of it names one of its parameters:
    it copies the caller's buffers, which only a wrapper followed to its calls could pool (a
    function with device buffers of its own, as gemm_cuda allocating A_gpu, is planned in its
    own body: nothing to say about its calls)."""
    if any(c.category == "alloc" for c in unit.in_function("api_calls", function.name)):
        return False
    params = {p.name for p in function.params if p.name}
    uses = SpanIndex(unit.in_function("var_uses", function.name))
    return any(use.name in params for c in calls for a in c.args[:2] for use in uses.inside(a.span))


def through_copy_wrappers(loaded, out, transfers_file, explain_id: str):
    """``out``, or the pass's output on the file with its copy wrappers' calls inlined where
    that changes their copies; warnings for the wrappers whose copies stay (see the module)."""
    model, source = loaded.model, loaded.source
    called = {c.name for f in model.functions for c in f.calls}
    units = [(model, source)]
    elsewhere = frozenset(n for n in called - {f.name for f in model.functions}
                          if not n.startswith("cuda"))
    if elsewhere:
        units += [(h.model, h.source) for h in host_helper_headers(loaded, elsewhere)]
    wrappers, refused = copy_wrappers(units)
    helpers, not_helpers = alloc_helpers(units, loaded.path)
    said = [_refusal(name, why, span, model, source, loaded.path)
            for name, (why, span) in refused.items() if name in called]
    said += [_refusal(name, why, span, model, source, loaded.path, "allocation")
             for name, (why, span) in not_helpers.items() if name in called]
    if not wrappers and not helpers:
        return replace(out, diagnostics=out.diagnostics + tuple(said))
    launching, _refused = launch_wrappers(model, source, tuple(u for u, _t in units[1:]))
    sites = call_sites(model, source, {**launching, **{n: w for n, (w, _s) in wrappers.items()}})
    allocating = alloc_sites(model, source, helpers)
    if not allocating and not any(s.wrapper in wrappers for s in sites):
        sites = []
    sites = sorted(sites + allocating, key=lambda s: s.start)
    if not sites:
        return replace(out, diagnostics=out.diagnostics + tuple(said))
    copy = load(loaded.path, loaded.options, source=inlined(source, sites))
    if copy.model is None:
        return replace(out, diagnostics=out.diagnostics + tuple(said))
    wrapped = transfers_file(copy)
    edits, followed = edits_back(loaded.path, source, sites, wrapped.edits)
    if followed:
        notes = [Diagnostic.note(f"the call of copy wrapper '{s.wrapper}' at line {s.line} is "
                                 "followed: its copies take part in the plan",
                                 explain_id, location_at(loaded.path, source, s.start))
                 for s in followed if s.wrapper in wrappers]
        notes += [Diagnostic.note(f"the call of allocation helper '{s.wrapper}' at line {s.line} is "
                                  "followed: its cudaMalloc takes part in the plan",
                                  explain_id, location_at(loaded.path, source, s.start))
                  for s in followed if s.wrapper in helpers]
        inside = [helpers[s.wrapper].span for s in followed if s.wrapper in helpers]
        moved = tuple(_moved(d, sites, source, loaded.path) for d in wrapped.diagnostics
                      if not _in_followed_helper(d, inside))
        return replace(out, edits=tuple(edits), diagnostics=moved + tuple(notes) + tuple(said),
                       groups=(), check_compiles=True)
    reasons = [lines_as_written(d.message, source, sites) for d in wrapped.diagnostics
               if d.severity == Severity.WARNING]
    why = "; ".join(dict.fromkeys(reasons)) or ("nothing merges: the copies move at different "
                                                "points or their buffers stay out of the pools")
    spans = {**{n: w[1] for n, w in wrappers.items()}, **{n: h.span for n, h in helpers.items()}}
    for name in dict.fromkeys(s.wrapper for s in sites if s.wrapper in spans):
        mine = [s for s in sites if s.wrapper == name]
        lines = ", ".join(str(s.line) for s in mine)
        where = spans[name]
        what = "allocations" if name in helpers else "copies"
        said.append(Diagnostic.warning(
            f"the {what} of '{name}' ({where.file}:{where.line}) are followed to its calls "
            f"(line {lines}) and left as written there: {why}", WRAPPER_ID,
            location_at(loaded.path, source, mine[0].start)))
    return replace(out, diagnostics=out.diagnostics + tuple(said))


def _refusal(name, why, span, model, source, path, what: str = "copy") -> Diagnostic:
    first = next((c.span for f in model.functions for c in f.calls if c.name == name), None)
    at = location_at(path, source, first.start) if first is not None else None
    if what == "allocation":
        return Diagnostic.warning(f"the cudaMalloc of allocation helper '{name}' ({span.file}:"
                                  f"{span.line}) is not followed to its calls: {why}; the buffers "
                                  "it returns stay out of the pools", WRAPPER_ID, at)
    return Diagnostic.warning(f"the copies of '{name}' ({span.file}:{span.line}) are not "
                              f"followed to its calls: {why}; they are left as written",
                              WRAPPER_ID, at)


def _in_followed_helper(diagnostic: Diagnostic, spans) -> bool:
    """The refusal of an allocation helper's own body (its pointer is returned: it escapes)
    once its calls are followed: its cudaMalloc is planned at each call instead."""
    at = diagnostic.location
    return at is not None and at.offset is not None and diagnostic.id == "transfers-escape" and \
        any(span.file == at.file and span.start <= at.offset < span.end for span in spans)


def _moved(diagnostic: Diagnostic, sites, source: bytes, path: str) -> Diagnostic:
    """A diagnostic of the inlined file placed in the file as written: inside an inlined call,
    at the call; elsewhere, back by what the inlining added before it."""
    at = diagnostic.location
    if at is None or at.offset is None or at.file != path:
        return diagnostic
    diagnostic = replace(diagnostic, message=lines_as_written(diagnostic.message, source, sites))
    shift = 0
    for start, end, site in inlined_regions(sites):
        if at.offset < start:
            break
        if at.offset < end:
            return replace(diagnostic, location=location_at(path, source, site.start))
        shift += (end - start) - (site.end - site.start)
    return replace(diagnostic, location=location_at(path, source, at.offset - shift))

