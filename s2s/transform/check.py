"""Never emit a rewrite that does not compile: parse the rewritten file before it is shown.

A pass hands its edits in groups (one per function's data region, for instance) that can be
kept or dropped independently. The rewritten file is parsed again with the flags of the
original parse (for C and C++ also with ``-fopenmp``, which checks every clause's variables);
when it has errors, groups are added back one at a time and every group that brings an error
is dropped with a warning naming the first error, so the rest of the file is still improved.
The file's result is then marked incomplete (exit 1): the user asked for a rewrite and did not
get all of it. The original had no errors (no model is built otherwise), so every error is
the rewrite's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from s2s.diagnostics import Diagnostic
from s2s.edits import Edit, EditSet
from s2s.model.span import SourceSpan


@dataclass(frozen=True)
class EditGroup:
    """Edits that stand or fall together, what they are about, and the id of the warning
    given when they are dropped (``omp-rewrite-invalid``)."""

    label: str
    edits: tuple[Edit, ...]
    at: SourceSpan | None = None
    invalid_id: str = "rewrite-invalid"


#: Parses rewritten bytes; returns the error diagnostics (empty: the rewrite is valid).
Reparse = Callable[[bytes], Sequence[Diagnostic]]


@dataclass(frozen=True)
class CheckedEdits:
    edits: tuple[Edit, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    incomplete: bool = False


def checked_edits(path: str, source: bytes, groups: Sequence[EditGroup],
                  reparse: Reparse) -> CheckedEdits:
    """The groups' edits less those whose rewrite ``reparse`` rejects."""
    everything = tuple(e for g in groups for e in g.edits)
    if not everything or not reparse(EditSet(everything).apply(path, source)):
        return CheckedEdits(everything)
    kept: list[Edit] = []
    said: list[Diagnostic] = []
    for group in groups:
        if not group.edits:
            continue
        errors = reparse(EditSet((*kept, *group.edits)).apply(path, source))
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
