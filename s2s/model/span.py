"""Source locations shared by every stage.

A :class:`SourceSpan` is the one currency between the front end, the analyses and the edit
engine: byte offsets (so edits slice raw bytes, never decoded text), a human position for
diagnostics, the indentation of the first line (so generated code lines up), and where the
construct came from when it is not plain text in the file (a macro expansion or a template),
because such constructs must be reported rather than edited.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Expr:
    """An expression as written: its exact source text and where it is."""

    text: str
    span: SourceSpan

    def to_json(self) -> dict:
        return {"text": self.text, "span": self.span.to_json()}
