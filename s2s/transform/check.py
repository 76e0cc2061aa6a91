"""Never emit a rewrite that does not compile: parse the rewritten file before it is shown.

A pass hands its edits in groups (one per function's data region, for instance) that can be
kept or dropped independently. The rewritten file is parsed again with the flags of the
original parse (for C and C++ also with ``-fopenmp``, which checks every clause's variables);
when it has errors, groups are added back one at a time and every group that brings an error
is dropped with a warning naming the first error, so the rest of the file is still improved.
The file's result is then marked incomplete (exit 1): the user asked for a rewrite and did not
get all of it. The original parsed without errors (no model is built otherwise), but a stricter
compiler (nvcc) may reject the original too: only errors the rewrite introduces count
(:func:`introduced`), an error of the original at the line a rewritten line comes from is the
original's, not the rewrite's (issue 29, item 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from s2s.diagnostics import Diagnostic
from s2s.edits import Edit, EditSet, original_lines
from s2s.model.span import SourceSpan


@dataclass(frozen=True)
class EditGroup:
    """Edits that stand or fall together, what they are about, and the id of the warning
    given when they are dropped (``omp-rewrite-invalid``)."""

    label: str
    edits: tuple[Edit, ...]
    at: SourceSpan | None = None
    invalid_id: str = "rewrite-invalid"


#: Parses rewritten bytes (made by the edits given with them); returns the error diagnostics
#: (empty: the rewrite is valid).
Reparse = Callable[[bytes, tuple[Edit, ...]], Sequence[Diagnostic]]


@dataclass(frozen=True)
class CheckedEdits:
    edits: tuple[Edit, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    incomplete: bool = False


def checked_edits(path: str, source: bytes, groups: Sequence[EditGroup],
                  reparse: Reparse) -> CheckedEdits:
    """The groups' edits less those whose rewrite ``reparse`` rejects."""
    everything = tuple(e for g in groups for e in g.edits)
    if not everything or not reparse(EditSet(everything).apply(path, source), everything):
        return CheckedEdits(everything)
    kept: list[Edit] = []
    said: list[Diagnostic] = []
    for group in groups:
        if not group.edits:
            continue
        trial = (*kept, *group.edits)
        errors = reparse(EditSet(trial).apply(path, source), trial)
        if errors:
            said.append(_dropped(group, errors[0]))
        else:
            kept.extend(group.edits)
    return CheckedEdits(tuple(kept), tuple(said), incomplete=True)


def _dropped(group: EditGroup, error: Diagnostic) -> Diagnostic:
    where = f" (line {error.location.line} of the rewritten file)" if error.location else ""
    return Diagnostic.warning(f"the rewrite of {group.label} does not compile: "
                              f"{error.message}{where}; left as written", group.invalid_id,
                              group.at)


def introduced(errors: Sequence[Diagnostic], original: Sequence[Diagnostic], source: bytes,
               edits: Sequence[Edit]) -> list[Diagnostic]:
    """The errors of a rewrite (``source`` changed by ``edits``) that its original does not
    have. On a line the rewrite left as it was, an error is the original's when the original
    has it at that line (:func:`s2s.edits.original_lines`); on a line of an edit's text, when
    the original has it anywhere (the pass copied the code in error: a fused kernel repeats
    its stages' bodies in ``__device__`` functions of its own: the same message with other
    names, one name shared, is the original's); without a line, when the original's errors
    repeat it."""
    said: dict[int, set[str]] = {}
    for error in original:
        said.setdefault(error.location.line if error.location else 0, set()).add(error.message)
    anywhere = [_quoted(error.message) for error in original]
    new = []
    for error in errors:
        if error.location is None:
            if error.message not in said.get(0, ()):
                new.append(error)
            continue
        first, last, edited = original_lines(source, edits, error.location.line)
        shape, names = _quoted(error.message)
        if edited and any(shape == other and (names & known or not names)
                          for other, known in anywhere):
            continue
        if not any(error.message in said.get(line, ()) for line in range(first, last + 1)):
            new.append(error)
    return new


_QUOTED = re.compile(r'"([^"\n]*)"')


def _quoted(message: str) -> tuple[str, set[str]]:
    """A compiler message with its quoted names blanked and a kernel's execution space said as
    a device function's (a pass moves a kernel's body into one), and those names."""
    shape = _QUOTED.sub('""', message).replace("__global__ function", "__device__ function")
    return shape, set(_QUOTED.findall(message))
