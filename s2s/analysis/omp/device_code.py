"""The byte ranges of a C file that clang compiles for the device: where an edit needs the
offloading check's device half (issue 30: clang-16's check of a rewrite compiled the host and
the device side of every file, about half of its cost).

``clang-16 -fsyntax-only -fopenmp -fopenmp-targets=...`` parses the file twice: for the host,
and for the device, where errors besides the host's come only from code emitted for the device
(deferred diagnostics: target region bodies, ``declare target`` functions and the functions
they call). The directives and clauses themselves are checked alike on both sides (clang-16
says a bad map clause twice). So a rewrite whose edits all lie outside that code has, on the
device side, the errors of the original's device code, and the check of the original decides
about those (:func:`s2s.driver.checked_output`): checking its host side alone is equivalent.

Facts from the model only; where they could miss device code the answer is None (check both
sides): C++ (constructors, operators and member calls run on the device without a call the
model names), ``declare target`` (every function it covers), directives written through
macros (``_Pragma``: not modelled).
"""

from __future__ import annotations

from s2s.model import TranslationUnit

Ranges = tuple[tuple[int, int], ...]


def device_ranges(model: TranslationUnit | None) -> Ranges | None:
    """``[start, end)`` of each target region body of ``model``'s own file and of each of its
    functions that a target region calls (directly or through other functions of the file, or
    whose address the file takes), in the file's offsets; None when that is not known."""
    if model is None or model.language != "c" or model.macro_directives \
            or any(d.is_declarative and "target" in d.words for d in model.directives):
        return None
    own = [f for f in model.functions if f.span.file == model.path]
    bodies = [d.stmt_span for d in model.directives
              if d.is_target_region and d.stmt_span is not None]
    if any(b.file != model.path for b in bodies):
        return None
    reached = {call.name for f in own for call in f.calls
               if any(b.start <= call.span.start < b.end for b in bodies)}
    if bodies:      # (a function reached through a pointer may run in a target region)
        reached |= {ref.name for ref in model.function_refs}
    calls = {f.name: {c.name for c in f.calls} for f in own}
    pending = list(reached)
    while pending:
        for callee in calls.get(pending.pop(), ()):
            if callee not in reached:
                reached.add(callee)
                pending.append(callee)
    return tuple(sorted([(b.start, b.end) for b in bodies] +
                        [(f.span.start, f.span.end) for f in own if f.name in reached]))


def outside(ranges: Ranges, edits) -> bool:
    """Whether no edit of ``edits`` (offset, length) touches a range of ``ranges`` (an edit at
    either end of a range counts as touching it)."""
    return not any(start <= edit.offset + edit.length and edit.offset <= end
                   for edit in edits for start, end in ranges)
