"""Which of a pass's explanations belongs to which edit.

Passes explain their work as notes (ids ending in ``-explain``) located at the statement a
change is about, and hand their edits in groups that stand or fall together (one data region,
say). An edit takes the notes located on the lines it touches (an insertion before a statement
sits on that statement's line); an edit made elsewhere (the exit directive after the region's
last statement) takes the notes at its group's place, or else those of its group's other
edits; an edit with neither (a pass without groups: the pool offsets of ``s2s transfers``)
takes the closest note of its function, before it if there is one. Notes that fit no edit
stay explanations of the file as a whole.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from s2s.diagnostics import Diagnostic
from s2s.edits import Edit


def is_explanation(diagnostic: Diagnostic) -> bool:
    return diagnostic.id.endswith("-explain")


@dataclass(frozen=True)
class Lines:
    """Line starts of one file's bytes: offsets to 1-based (line, byte column)."""

    starts: tuple[int, ...]

    @classmethod
    def of(cls, source: bytes) -> Lines:
        starts = [0]
        at = source.find(b"\n")
        while at >= 0:
            starts.append(at + 1)
            at = source.find(b"\n", at + 1)
        return cls(tuple(starts))

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def line_start(self, line: int) -> int:
        return self.starts[min(max(line, 1), len(self.starts)) - 1]


@dataclass(frozen=True)
class Explained:
    """Each edit's explanations (in the order of the edits) and the notes left over."""

    per_edit: tuple[tuple[Diagnostic, ...], ...]
    group_of: tuple[str | None, ...]
    unattached: tuple[Diagnostic, ...]


def explain(edits: tuple[Edit, ...], notes: list[Diagnostic], lines: Lines,
            groups: tuple = (), scopes: tuple[tuple[int, int], ...] = ()) -> Explained:
    """Attach ``notes`` (explanations of one file) to ``edits`` as the module says;
    ``scopes`` are the byte ranges of the file's functions, for edits that neither their
    lines nor a group explain."""
    by_line: dict[int, list[Diagnostic]] = {}
    for note in notes:
        if note.location is not None:
            by_line.setdefault(note.location.line, []).append(note)
    used: set[int] = set()
    own: list[list[Diagnostic]] = []
    for edit in edits:
        first = lines.line_col(edit.offset)[0]
        last = lines.line_col(max(edit.offset, edit.end - 1))[0] if edit.length else first
        found = [n for line in range(first, last + 1) for n in by_line.get(line, ())]
        used.update(id(n) for n in found)
        own.append(found)
    label: list[str | None] = []
    for index, edit in enumerate(edits):
        group = next((g for g in groups if edit in g.edits), None)
        label.append(group.label if group is not None else None)
        if own[index] or group is None:
            continue
        borrowed = list(by_line.get(group.at.line, ())) if group.at is not None else []
        if not borrowed:
            for other, found in zip(edits, own, strict=True):
                if other in group.edits:
                    borrowed += [n for n in found if n not in borrowed]
        used.update(id(n) for n in borrowed)
        own[index] = borrowed
    for index, edit in enumerate(edits):
        if not own[index]:
            own[index] = _nearest_in_scope(edit, notes, scopes)
            used.update(id(n) for n in own[index])
    rest = tuple(n for n in notes if id(n) not in used)
    return Explained(tuple(tuple(found) for found in own), tuple(label), rest)


def _nearest_in_scope(edit: Edit, notes: list[Diagnostic], scopes) -> list[Diagnostic]:
    """The note of the edit's function closest before the edit (else closest after it)."""
    scope = next(((a, b) for a, b in scopes if a <= edit.offset < b), None)
    if scope is None:
        return []
    inside = [n for n in notes if n.location is not None and n.location.offset is not None
              and scope[0] <= n.location.offset < scope[1]]
    before = [n for n in inside if n.location.offset <= edit.offset]
    if before:
        at = max(n.location.offset for n in before)
        return [n for n in before if n.location.offset == at]
    if inside:
        at = min(n.location.offset for n in inside)
        return [n for n in inside if n.location.offset == at]
    return []
