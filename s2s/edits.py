"""One edit model, after clang's ``tooling::Replacement``.

An :class:`Edit` replaces ``length`` bytes at byte ``offset`` of ``path`` with ``text``. An
:class:`EditSet` collects the edits of a whole run: it rejects overlapping edits (neither can
be applied safely), drops exact duplicates (two analyses asking for the same change), and is
applied once at the end, so every plan is made against the unmodified source.

Ordering at one offset: pure insertions come before a replacement starting there, and several
insertions at one offset keep the order in which they were added (like clang's merge of
insertions), so a pass can insert a line above a statement and another after it.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from s2s.diagnostics import EditConflict, Location
from s2s.model.span import SourceSpan


@dataclass(frozen=True, order=True)
class Edit:
    """Replace ``length`` bytes at byte ``offset`` in ``path`` with ``text``."""

    path: str
    offset: int
    length: int
    text: str

    def __post_init__(self):
        if self.offset < 0 or self.length < 0:
            raise ValueError(f"edit with negative offset or length: {self}")

    @property
    def end(self) -> int:
        return self.offset + self.length

    @property
    def is_insertion(self) -> bool:
        return self.length == 0

    @classmethod
    def replace(cls, span: SourceSpan, text: str) -> Edit:
        """Replace the text of ``span``; refuses spans from macro expansions or templates."""
        _require_editable(span)
        return cls(span.file, span.start, span.length, text)

    @classmethod
    def insert_before(cls, span: SourceSpan, text: str) -> Edit:
        _require_editable(span)
        return cls(span.file, span.start, 0, text)

    @classmethod
    def insert_after(cls, span: SourceSpan, text: str) -> Edit:
        _require_editable(span)
        return cls(span.file, span.end, 0, text)


def _require_editable(span: SourceSpan) -> None:
    if span.macro is not None:
        raise EditConflict(f"refusing to edit inside the expansion of macro '{span.macro}'",
                           span, id="edit-in-macro")
    if span.template is not None:
        raise EditConflict(f"refusing to edit inside template '{span.template}'", span,
                           id="edit-in-template")


def _overlaps(a: Edit, b: Edit) -> bool:
    """True when applying both is ambiguous: shared bytes, or an insertion strictly inside."""
    if a.is_insertion and b.is_insertion:
        return False
    if a.is_insertion:
        return b.offset < a.offset < b.end
    if b.is_insertion:
        return a.offset < b.offset < a.end
    return a.offset < b.end and b.offset < a.end


class EditSet:
    """A conflict-free set of edits over any number of files."""

    def __init__(self, edits: Iterable[Edit] = ()):
        # Per path: sort keys (offset, replacement?, serial) and edits, kept in step.
        self._keys: dict[str, list[tuple[int, int, int]]] = {}
        self._edits: dict[str, list[Edit]] = {}
        self._serial = 0
        for edit in edits:
            self.add(edit)

    def add(self, edit: Edit) -> bool:
        """Add ``edit``; return False for an exact duplicate, raise EditConflict on overlap."""
        keys = self._keys.setdefault(edit.path, [])
        edits = self._edits.setdefault(edit.path, [])
        first = bisect.bisect_left(keys, (edit.offset,))
        for other in edits[max(0, first - 1):]:
            if other.offset > edit.end:
                break
            if other == edit:
                return False
            if _overlaps(other, edit):
                raise _conflict(edit, other)
        self._serial += 1
        key = (edit.offset, 0 if edit.is_insertion else 1, self._serial)
        at = bisect.bisect_right(keys, key)
        keys.insert(at, key)
        edits.insert(at, edit)
        return True

    def update(self, edits: Iterable[Edit]) -> None:
        for edit in edits:
            self.add(edit)

    def __iter__(self) -> Iterator[Edit]:
        for path in sorted(self._edits):
            yield from self._edits[path]

    def __len__(self) -> int:
        return sum(len(v) for v in self._edits.values())

    def __bool__(self) -> bool:
        return len(self) > 0

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted(p for p, v in self._edits.items() if v))

    def for_path(self, path: str) -> tuple[Edit, ...]:
        """The edits of one file in application order."""
        return tuple(self._edits.get(path, ()))

    def apply(self, path: str, source: bytes) -> bytes:
        """Return ``source`` with this set's edits for ``path`` applied.

        New lines take the file's line ending: in a file written with CRLF, every LF of the
        edits' text not already preceded by CR becomes CRLF.
        """
        out: list[bytes] = []
        pos = 0
        crlf = line_ending(source) == b"\r\n"
        for edit in self.for_path(path):
            if edit.end > len(source):
                raise EditConflict(f"edit at bytes {edit.offset}..{edit.end} lies past the end "
                                   f"of the file ({len(source)} bytes)", location_at(path, source, edit.offset))
            out.append(source[pos : edit.offset])
            text = edit.text.encode("utf-8", errors="surrogateescape")
            out.append(_BARE_LF.sub(b"\r\n", text) if crlf else text)
            pos = edit.end
        out.append(source[pos:])
        return b"".join(out)


_BARE_LF = re.compile(rb"(?<!\r)\n")


def original_lines(source: bytes, edits: Iterable[Edit], line: int) -> tuple[int, int, bool]:
    """The lines ``first..last`` (1-based) of ``source`` that line ``line`` of its rewrite by
    ``edits`` (one file's, not overlapping) comes from, and whether it is a line of an edit's
    text: an unchanged line is the one line it was, shifted by the lines the edits before it
    added or removed; a line of an edit's text comes from the lines that edit replaced (or
    the line it was inserted into)."""
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.offset, e.end)):
        first = source.count(b"\n", 0, edit.offset) + 1
        if line < first + shift:
            break
        last = first + source.count(b"\n", edit.offset, edit.end)
        new_last = first + shift + edit.text.count("\n")
        if line <= new_last:
            return first, last, True
        shift = new_last - last
    return line - shift, line - shift, False


def line_ending(source: bytes) -> bytes:
    """The file's line ending: CRLF when most of its lines end so, else LF."""
    crlf = source.count(b"\r\n")
    return b"\r\n" if crlf > source.count(b"\n") - crlf else b"\n"


def _conflict(new: Edit, old: Edit) -> EditConflict:
    """An EditConflict that names both edits by line:col (reads the file, a rare path)."""
    try:
        with open(new.path, "rb") as handle:
            source = handle.read()
    except OSError:
        source = b""
    line, col = line_col(source, old.offset)
    return EditConflict(
        f"conflicting edits: this edit overlaps another planned at {new.path}:{line}:{col} "
        f"({old.length} bytes replaced by {old.text[:40]!r})",
        location_at(new.path, source, new.offset),
    )


def location_at(path: str, source: bytes, offset: int) -> Location:
    """The diagnostics' location of byte ``offset`` of ``source`` (1-based line, byte column)."""
    line, col = line_col(source, offset)
    return Location(path, line, col, offset)


def line_col(source: bytes, offset: int) -> tuple[int, int]:
    """1-based line and byte column of ``offset`` in ``source``."""
    line = source.count(b"\n", 0, offset) + 1
    start = source.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def beside_name(generated: str, source: str) -> str:
    """Where a file written with ``source``'s rewrite sits relative to the folder of ``source``:
    its base name for one beside it (mgpu's kernel table, a ``.cu`` file included from the same
    folder), ``sub/x.cu`` for one in a folder below (a ``.cu`` file ``source`` includes as
    ``"sub/x.cu"``). Every build or copy of the rewrite puts it there, where the source's
    quoted include finds it (the base name for a file elsewhere)."""
    folder = os.path.dirname(os.path.abspath(source))
    relative = os.path.relpath(os.path.abspath(generated), folder)
    return os.path.basename(generated) if relative.startswith(os.pardir) else relative
