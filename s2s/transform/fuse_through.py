"""``s2s fuse`` through calls of launch wrappers: the pass on the file with the calls inlined
(:mod:`s2s.transform.fuse_wrappers`), kept where it fuses a wrapper's launches, and the
warnings about wrappers' launches said in terms of their calls (issue 29, items 4 (b), 6)."""

from __future__ import annotations

from dataclasses import replace

from s2s.analysis.fuse.graph import add_checks, header_helpers
from s2s.diagnostics import Diagnostic, Location
from s2s.edits import Edit, location_at
from s2s.frontend.extract import host_helper_headers, load
from s2s.transform.check import EditGroup
from s2s.transform.fuse_wrappers import (
    call_sites,
    edits_back,
    inlined,
    inlined_regions,
    launch_wrappers,
    lines_as_written,
)


def helper_models(loaded) -> tuple:
    """The models of the project headers that may define a function the file's launching
    functions call and the file does not define (``after_kernel``, ``__getLastCudaError`` of a
    ``helper_cuda.h``, ``iDivUp``), each in the file's context: the headers with device code
    (modelled with the file) and those without that name such a function (a second parse,
    only when there are some)."""
    model = loaded.model
    defined = {f.name for f in model.functions}
    elsewhere = frozenset(c.name for f in model.functions if model.in_function("launches", f.name)
                          for c in f.calls if c.name not in defined)
    own = tuple(h.model for h in loaded.headers)
    return own + (tuple(h.model for h in host_helper_headers(loaded, elsewhere, b""))
                  if elsewhere else ())


def through_wrappers(loaded, out, fuse_file, unfused_id: str, explain_id: str,
                     invalid_id: str, helpers: tuple | None = None):
    """``out`` (the pass's output on the file as written), or the output on the file with
    the calls of launch wrappers inlined where that fuses their launches: the fused calls
    become the wrapper's statements with the fused launch, their wrapper's "only launch"
    warnings go when every call of it is fused; a wrapper whose calls are followed but not
    fused is warned about with the reasons the planner gave at its calls, one not followed
    with why."""
    model, source = loaded.model, loaded.source
    out = _uncalled_said(model, out, unfused_id)
    if not _candidates(model, loaded.headers):
        return out
    if helpers is None:
        helpers = helper_models(loaded)
    wrappers, refused = launch_wrappers(model, source, helpers)
    for header in loaded.headers:                # launch wrappers of a .cuh with the kernels
        found, _why = launch_wrappers(header.model, header.source, (*helpers, model),
                                      loaded.path)
        wrappers.update({name: w for name, w in found.items() if name not in wrappers})
    sites = call_sites(model, source, wrappers)
    edits, fused, reasons = [], [], {}
    if sites:
        copy = load(loaded.path, loaded.options, source=inlined(source, sites))
        if copy.model is not None:
            add_checks(copy.model, *header_helpers(helpers))
            wrapped = fuse_file(copy)
            edits, fused = edits_back(loaded.path, source, sites, wrapped.edits)
            reasons = _reasons_at_calls(wrapped.diagnostics, unfused_id, sites, source)
    done = {name for name in wrappers                 # every call of it fused
            if sum(site in fused for site in sites if site.wrapper == name) == _calls(model, name)}
    kept, dropped, said = [], 0, set()
    for diagnostic in out.diagnostics:
        # (a run of several launches in the function has the planner's own reasons)
        name = _wrapper_of(model, diagnostic, set(wrappers) | set(refused)) \
            if diagnostic.id == unfused_id and diagnostic.message.startswith("launch of ") \
            else None
        if name in done:
            dropped += 1
            continue
        head = diagnostic.message.split(": ")[0]
        own = diagnostic.message[len(head) + 2:]     # what ends its run in its own function
        if name in refused:
            diagnostic = replace(diagnostic, message=f"{head}: {own}; its calls are not followed "
                                 f"(launches of different host functions are not fused): "
                                 f"{refused[name]}")
        elif name in reasons:
            diagnostic = replace(diagnostic, message=f"{head}: followed to its calls, not fused "
                                 f"there: {'; '.join(dict.fromkeys(reasons[name]))}")
        elif name in wrappers and any(site.wrapper == name for site in fused):
            done_at = {site.start for site in fused}
            rest = sorted({c.span.line for f in model.functions for c in f.calls
                           if c.name == name and c.span.start not in done_at})
            diagnostic = replace(diagnostic, message=(
                f"{head}: its calls are followed and fused at line "
                f"{', '.join(str(s.line) for s in fused if s.wrapper == name)}; the call at line "
                f"{', '.join(map(str, rest))} is left as written (an argument used in the launch "
                "configuration that is not a plain variable or integer literal is not bound, and "
                "a lone launch has nothing to fuse with)"))
        kept.append(diagnostic)
        if diagnostic.id == unfused_id:
            said.add(_wrapper_of(model, diagnostic, set(wrappers)))
    unsaid = {n: r for n, r in reasons.items() if n not in said and n not in done}
    kept += _unsaid(model, loaded.path, source, sites, unsaid, unfused_id)
    if "left unfused" not in dict(out.counts):    # the file alone counted none of them
        out = _count_left(out, sum(wrappers[site.wrapper].launches for site in sites
                                   if site.wrapper in unsaid))
    for site in fused:
        kept.append(Diagnostic.note(
            f"the call of launch wrapper '{site.wrapper}' at line {site.line} is followed: it "
            "is replaced by the wrapper's statements, bound to the call's arguments, with the "
            "fused launch", explain_id, location_at(loaded.path, source, site.start)))
    if not fused:
        return replace(out, diagnostics=tuple(kept))
    counts = tuple((what, max(0, n - dropped) if what == "left unfused" else n)
                   for what, n in out.counts)
    removed = _unused_wrappers(model, source, loaded.path, done, wrappers)
    edits = list(edits) + [edit for _name, edit in removed]
    kept += [Diagnostic.note(f"static launch wrapper '{name}' is removed: every call of it is "
                             "replaced by its fused statements (nvcc would warn that it is "
                             "unused)", explain_id, location_at(loaded.path, source, edit.offset))
             for name, edit in removed]
    group = EditGroup("the fusion of launches through wrapper calls", tuple(edits),
                      None, invalid_id)
    return replace(out, edits=tuple(edits), diagnostics=tuple(kept), groups=(group,),
                   check_compiles=True, counts=counts)


def _unused_wrappers(model, source: bytes, path: str, done: set, wrappers: dict) -> list:
    """(name, deletion) of each ``static`` launch wrapper of this file whose every call a
    fusion replaced: left defined, it is a static function nothing calls (nvcc's "declared but
    never referenced"). A wrapper with external linkage may have callers in other files and
    stays. The deletion takes the definition's lines, and one blank line after it when a
    blank line also precedes it."""
    out = []
    for name in sorted(done):
        function = model.function(name)
        if function is None or not function.is_static or wrappers[name].defined_at < 0 or \
                function.span.file != path or function.span.macro is not None:
            continue
        start = source.rfind(b"\n", 0, function.span.start) + 1
        if source[start:function.span.start].strip():
            continue                         # something else on the definition's first line
        end = source.find(b"\n", function.span.end)
        end = len(source) if end < 0 else end + 1
        if source[function.span.end:end].strip():
            continue                         # something else after its closing brace
        if source[end:end + 1] == b"\n" and source[max(0, start - 2):start] == b"\n\n":
            end += 1
        out.append((name, Edit(path, start, end - start, "")))
    return out


def _count_left(out, more: int):
    """``out`` with ``more`` launches (those of wrapper calls followed and not fused, that the
    file as written did not count) added to its "left unfused" count."""
    if not more:
        return out
    counts = dict(out.counts)
    counts["left unfused"] = counts.get("left unfused", 0) + more
    return replace(out, counts=tuple(counts.items()))


def _unsaid(model, path: str, source: bytes, sites, reasons: dict, unfused_id: str) -> list:
    """A warning for each wrapper followed to its calls and not fused there that no warning
    of the file as written is about (its launch is the file's only one, so the file alone
    gave no word: issue 29, item 6), at the wrapper's launch, or its first call when the
    wrapper is a header's."""
    out = []
    for name, why in reasons.items():
        launches = model.in_function("launches", name)
        if launches:
            at = Location(launches[0].span.file, launches[0].span.line,
                          launches[0].span.column, launches[0].span.start)
            what = f"launch of {launches[0].kernel} in '{name}'"
        else:
            at = location_at(path, source, next(s.start for s in sites if s.wrapper == name))
            what = f"call of launch wrapper '{name}'"
        out.append(Diagnostic.warning(f"{what}: followed to its calls, not fused there: "
                                      f"{'; '.join(dict.fromkeys(why))}", unfused_id, at))
    return out


def _uncalled_said(model, out, unfused_id: str):
    """The "only launch" warning of a function this file never calls (a wrapper whose calls a
    fusion replaced, or one called from another file) says so, not that its calls are not
    followed."""
    uncalled = {f.name for f in model.functions if f.name != "main"
                and model.in_function("launches", f.name) and not _called(model, f.name)}
    if not uncalled:
        return out
    said = []
    for diagnostic in out.diagnostics:
        name = _wrapper_of(model, diagnostic, uncalled) if diagnostic.id == unfused_id else None
        if name is not None and "is the only launch of '" in diagnostic.message:
            diagnostic = replace(diagnostic, message=(
                f"{diagnostic.message.split(': ')[0]}: this file does not call '{name}' "
                "(launches of different host functions are not fused)"))
        said.append(diagnostic)
    return replace(out, diagnostics=tuple(said))


def _reasons_at_calls(diagnostics, unfused_id: str, sites, source: bytes
                      ) -> dict[str, list[str]]:
    """Wrapper -> the unfused warnings of the inlined file that sit in its inlined calls,
    each saying at which call (line) of the file as written (the lines they name too)."""
    found: dict[str, list[str]] = {}
    by_caller: dict[str, list[str]] = {}
    regions = inlined_regions(sites)
    for diagnostic in diagnostics:
        at = diagnostic.location
        if diagnostic.id != unfused_id or at is None or at.offset is None:
            continue
        for start, end, site in regions:
            if start <= at.offset < end:
                message = lines_as_written(diagnostic.message, source, sites)
                said = f"at its call on line {site.line}, {message}"
                found.setdefault(site.wrapper, []).append(said)
                by_caller.setdefault(site.caller, []).append(
                    f"in the launch run of its call from line {site.line}, {message}")
    for site in sites:                  # a run's warning sits at its first launch only
        if site.wrapper not in found and site.caller in by_caller:
            found[site.wrapper] = by_caller[site.caller]
    return found


def _candidates(model, headers) -> bool:
    """Whether a function of the file with launches is called by another one, or the file
    calls one of a project header's (a wrapper worth following: then the headers' helpers
    are worth a second parse)."""
    called = {c.name for f in model.functions for c in f.calls}
    return any(model.in_function("launches", f.name) and _called(model, f.name)
               for f in model.functions) or \
        any(h.model.in_function("launches", f.name) and f.name in called
            for h in headers for f in h.model.functions)


def _calls(model, name: str) -> int:
    return sum(c.name == name for f in model.functions for c in f.calls)


def _called(model, name: str) -> bool:
    return any(c.name == name for f in model.functions if f.name != name for c in f.calls)


def _wrapper_of(model, diagnostic, names: set[str]) -> str | None:
    location = diagnostic.location
    if location is None or location.offset is None:
        return None
    for name in names:
        function = model.function(name)       # None: a project header's wrapper
        span = function.span if function is not None else None
        if span is not None and location.file == span.file and \
                span.start <= location.offset < span.end:
            return name
    return None

