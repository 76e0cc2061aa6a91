"""Source locations shared by every stage.

A :class:`SourceSpan` is the one currency between the front end, the analyses and the edit
engine: byte offsets (so edits slice raw bytes, never decoded text), a human position for
diagnostics, the indentation of the first line (so generated code lines up), and where the
construct came from when it is not plain text in the file (a macro expansion or a template),
because such constructs must be reported rather than edited.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A half-open byte range ``[start, end)`` of one file, with its human position.

    ``line`` and ``column`` are 1-based; ``column`` counts bytes, as clang does.
    ``macro`` names the macro whose expansion produced the construct (its span is then the
    macro call's extent); ``template`` names the enclosing template when the construct sits
    in a template definition or instantiation.
    """

    file: str
    start: int
    end: int
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0
    indent: str = ""
    macro: str | None = None
    template: str | None = None

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def editable(self) -> bool:
        """False for text produced by a macro expansion or inside a template."""
        return self.macro is None and self.template is None

    def contains(self, other: SourceSpan) -> bool:
        return self.file == other.file and self.start <= other.start and other.end <= self.end

    def text(self, source: bytes) -> str:
        return source[self.start : self.end].decode("utf-8", errors="surrogateescape")

    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict:
        data = {
            "file": self.file,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "indent": self.indent,
        }
        if self.macro is not None:
            data["macro"] = self.macro
        if self.template is not None:
            data["template"] = self.template
        return data


@dataclass(frozen=True, slots=True)
class Expr:
    """An expression as written: its exact source text and where it is."""

    text: str
    span: SourceSpan

    def to_json(self) -> dict:
        return {"text": self.text, "span": self.span.to_json()}


class SpanIndex(Generic[T]):
    """Items (anything with a span) looked up by a span that contains them.

    ``inside(span)`` gives the items whose span ``span.contains``, ``containing(offset)`` those
    whose span holds a byte offset, both in the order the items were given, after a bisect on
    the sorted start offsets: filtering a whole list for every statement made the analyses
    quadratic on big files. (The file of the spans is not compared by ``containing``.)
    """

    def __init__(self, items: Iterable[T], span_of: Callable[[T], SourceSpan] = lambda item: item.span):
        self._items = list(items)
        self._spans = [span_of(item) for item in self._items]
        order = sorted(range(len(self._items)), key=lambda i: self._spans[i].start)
        self._order = order
        self._starts = [self._spans[i].start for i in order]
        self._reach: list[int] | None = None

    def __len__(self) -> int:
        return len(self._items)

    def containing(self, offset: int) -> list[T]:
        """The items whose span has ``start <= offset < end``, in the order they were given."""
        if self._reach is None:  # largest end among the items sorted up to each position
            reach, top = [], -1
            for i in self._order:
                top = max(top, self._spans[i].end)
                reach.append(top)
            self._reach = reach
        k = bisect.bisect_right(self._starts, offset) - 1
        hits = []
        while k >= 0 and self._reach[k] > offset:  # no item further left reaches the offset
            i = self._order[k]
            if offset < self._spans[i].end:
                hits.append(i)
            k -= 1
        hits.sort()
        return [self._items[i] for i in hits]

    def inside(self, span: SourceSpan) -> list[T]:
        lo = bisect.bisect_left(self._starts, span.start)
        hi = bisect.bisect_right(self._starts, span.end, lo)
        spans = self._spans
        hits = [i for i in self._order[lo:hi] if span.contains(spans[i])]
        hits.sort()
        return [self._items[i] for i in hits]
