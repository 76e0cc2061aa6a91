"""One diagnostics path: the exception hierarchy, the Diagnostic record and its printer.

Every message s2s shows a user goes through :class:`DiagnosticPrinter`, in the format
compilers use (``file:line:col: severity: message [id]``, the source line, a caret) so editors
and CI annotators pick it up. Warnings carry stable ids; ``--silence PATTERN`` (fnmatch) hides
them, and the first shown warning of each id says how.
"""

from __future__ import annotations

import enum
import fnmatch
import os
import re
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from s2s.bounded_read import read_at_most
from s2s.model.span import SourceSpan

#: Longest stretch of a source line shown under a diagnostic (keeps 100k-char lines readable).
MAX_SHOWN_LINE = 160
#: Files larger than this get no source excerpt under their messages (s2s reads none that large).
MAX_EXCERPT_FILE_BYTES = 64 * 1024 * 1024


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Location:
    """A point in a file for diagnostics that have no span (libclang gives points)."""

    file: str
    line: int
    column: int
    offset: int | None = None

    @classmethod
    def of(cls, span: SourceSpan) -> Location:
        return cls(span.file, span.line, span.column, span.start)


@dataclass(frozen=True)
class Diagnostic:
    """One message about the user's code or about s2s itself.

    ``id`` is stable (``parse-error``, ``macro-expansion``, ...) so users can silence
    warnings by id; ``location`` is None for messages about no particular place.
    """

    severity: Severity
    message: str
    id: str
    location: Location | None = None
    notes: tuple[Diagnostic, ...] = ()

    @classmethod
    def error(cls, message: str, id: str, at: SourceSpan | Location | None = None) -> Diagnostic:
        return cls(Severity.ERROR, message, id, _as_location(at))

    @classmethod
    def warning(cls, message: str, id: str, at: SourceSpan | Location | None = None) -> Diagnostic:
        return cls(Severity.WARNING, message, id, _as_location(at))

    @classmethod
    def note(cls, message: str, id: str = "note", at: SourceSpan | Location | None = None) -> Diagnostic:
        return cls(Severity.NOTE, message, id, _as_location(at))

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def headline(self) -> str:
        where = ""
        if self.location is not None:
            where = f"{self.location.file}:{self.location.line}:{self.location.column}: "
        return f"{where}{self.severity.value}: {self.message} [{self.id}]"

    def to_json(self) -> dict:
        data: dict = {"severity": self.severity.value, "message": self.message, "id": self.id}
        if self.location is not None:
            data.update(file=self.location.file, line=self.location.line, column=self.location.column)
        if self.notes:
            data["notes"] = [n.to_json() for n in self.notes]
        return data


_RESET, _BOLD, _GREEN = "\033[0m", "\033[1m", "\033[1;32m"
#: ANSI colours of each severity (as gcc and clang print them)
SEVERITY_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m",
                   Severity.NOTE: "\033[1;36m"}


def colored_headline(diag: Diagnostic) -> str:
    """:meth:`Diagnostic.headline` with the place bold and the severity in its colour."""
    where = ""
    if diag.location is not None:
        where = (f"{_BOLD}{diag.location.file}:{diag.location.line}:{diag.location.column}:"
                 f"{_RESET} ")
    return (f"{where}{SEVERITY_COLORS[diag.severity]}{diag.severity.value}:{_RESET} "
            f"{_BOLD}{diag.message}{_RESET} [{diag.id}]")


def _as_location(at: SourceSpan | Location | None) -> Location | None:
    if isinstance(at, SourceSpan):
        return Location.of(at)
    return at


class S2SError(Exception):
    """Base of every error s2s raises on purpose; carries the diagnostic to print.

    ``exit_code`` is what the CLI returns when this error ends a run: 1 for a problem with one
    input file, 2 for usage and internal errors.
    """

    exit_code = 1
    default_id = "error"

    def __init__(self, message: str, at: SourceSpan | Location | None = None, id: str | None = None,
                 notes: tuple[Diagnostic, ...] = ()):
        super().__init__(message)
        self.diagnostic = Diagnostic(Severity.ERROR, message, id or self.default_id,
                                     _as_location(at), notes)


class UsageError(S2SError):
    """Bad command line or configuration."""

    exit_code = 2
    default_id = "usage"


class ToolchainError(S2SError):
    """A required tool or library (libclang, clang-16, nvcc) is missing or unusable."""

    exit_code = 2
    default_id = "toolchain"


class InputError(S2SError):
    """An input file cannot be read or decoded."""

    default_id = "input"


class ParseError(S2SError):
    """The front end could not build a model of a file (libclang errors)."""

    default_id = "parse-error"


class UnsupportedConstruct(S2SError):
    """A construct s2s cannot analyse or rewrite safely (macro, template, non-affine access...)."""

    default_id = "unsupported"


class EditConflict(S2SError):
    """Two planned edits overlap; applying either silently would corrupt the file."""

    exit_code = 2
    default_id = "edit-conflict"


class InternalError(S2SError):
    """A bug in s2s: reported with context instead of a traceback."""

    exit_code = 2
    default_id = "internal"


@dataclass
class DiagnosticPrinter:
    """Prints diagnostics with the source line and a caret; filters silenced warning ids.

    ``silenced`` holds fnmatch patterns of warning ids (errors are never silenced).
    ``sources`` caches file bytes so a run reads each file once for its messages.
    """

    stream: TextIO = field(default_factory=lambda: sys.stderr)
    silenced: tuple[str, ...] = ()
    show_source: bool = True
    sources: dict[str, bytes] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: {"error": 0, "warning": 0, "note": 0})
    #: said once per warning id; None for none (the nvcc wrapper keeps a warning to one line)
    hint: str | None = "note: silence this warning with --silence {id}"
    _hinted: set[str] = field(default_factory=set)
    _line_starts: dict[str, tuple[bytes, list[int]]] = field(default_factory=dict)
    #: how often each diagnostic printed so far came again (printed once, counted after)
    repeats: dict[Diagnostic, int] = field(default_factory=dict)
    #: colour the severity (error red, warning yellow, note cyan) and the caret, as compilers do
    color: bool = False

    def is_silenced(self, diag: Diagnostic) -> bool:
        if diag.severity is Severity.ERROR:
            return False
        return any(fnmatch.fnmatchcase(diag.id, pattern) for pattern in self.silenced)

    def emit(self, diag: Diagnostic, alike: str = "") -> bool:
        """Print ``diag`` unless silenced, followed by the line ``alike`` (the near-duplicates
        it stands for, from :meth:`emit_all`); return whether it was printed."""
        if self.is_silenced(diag):
            return False
        if diag in self.repeats:          # the same message at the same place: counted only
            self.repeats[diag] += 1
            return False
        self.repeats[diag] = 0
        self.counts[diag.severity.value] += 1
        self.stream.write(self.render(diag) + alike)
        if diag.severity is Severity.WARNING and diag.id not in self._hinted and self.hint:
            self._hinted.add(diag.id)
            self.stream.write(self.hint.format(id=diag.id) + "\n")
        return True

    def emit_all(self, diagnostics: Iterable[Diagnostic]) -> int:
        """Print a batch (one file's diagnostics) with near-duplicate warnings collapsed:
        warnings of one id whose messages differ only in names and numbers (:func:`template`)
        are shown once, the first one in full, followed by ``note: (and 14 more like this at
        lines 12, 30, ...)``; each is counted. Return how many were printed. Only the text
        output is shortened: the JSON and SARIF printers list every diagnostic."""
        batch = [d for d in diagnostics if not self.is_silenced(d)]
        groups: dict[tuple, list[Diagnostic]] = {}
        for diag in batch:
            key = (diag.id, template(diag.message)) if diag.severity is Severity.WARNING \
                else (id(diag),)
            groups.setdefault(key, []).append(diag)
        printed = 0
        for diag in batch:
            key = (diag.id, template(diag.message)) if diag.severity is Severity.WARNING \
                else (id(diag),)
            alike = groups.get(key)
            if not alike or alike[0] is not diag:
                continue
            more, same = [], 0
            for other in alike[1:]:
                if other == diag:               # the same message at the same place
                    same += 1
                elif other in self.repeats:
                    self.repeats[other] += 1
                else:
                    self.repeats[other] = 0
                    self.counts[other.severity.value] += 1
                    more.append(other)
            line = f"note: (and {len(more)} more like this at {_places(diag, more)})\n" \
                if more else ""
            printed += self.emit(diag, line)
            if diag in self.repeats:
                self.repeats[diag] += same
        return printed

    def render(self, diag: Diagnostic) -> str:
        lines = [colored_headline(diag) if self.color else diag.headline()]
        if self.show_source and diag.location is not None:
            excerpt = self.source_excerpt(diag.location)
            if self.color and excerpt:
                excerpt[-1] = excerpt[-1][:-1] + f"{_GREEN}^{_RESET}"
            lines.extend(excerpt)
        text = "\n".join(lines) + "\n"
        for note in diag.notes:
            text += self.render(note)
        return text

    def source_excerpt(self, loc: Location) -> list[str]:
        """The source line of ``loc`` and a caret under its column ([] when unavailable)."""
        data = self._source(loc.file)
        if data is None or loc.line < 1:
            return []
        # The line from an index of line starts made once per file, and decoded only around
        # the caret when it is ASCII: splitting and decoding the whole file for every message
        # was quadratic on a file of one long line with many warnings.
        cached = self._line_starts.get(loc.file)
        if cached is None or cached[0] is not data:
            cached = self._line_starts[loc.file] = (data, [0] + [m.end() for m in re.finditer(b"\n", data)])
        starts = cached[1]
        if loc.line > len(starts):
            return []
        end = starts[loc.line] - 1 if loc.line < len(starts) else len(data)
        raw = data[starts[loc.line - 1]:end].rstrip(b"\r")
        col = max(loc.column - 1, 0)
        if raw.isascii():
            caret_at, length = min(col, len(raw)), len(raw)
            start = 0
            if length > MAX_SHOWN_LINE:
                start = max(0, min(caret_at - MAX_SHOWN_LINE // 2, length - MAX_SHOWN_LINE))
            text = raw[start : start + MAX_SHOWN_LINE].decode("ascii")
            shown = "".join(ch if ch.isprintable() or ch == "\t" else "?" for ch in text)
            pad = "".join("\t" if ch == "\t" else " " for ch in shown[: caret_at - start])
            return [shown, pad + "^"]
        prefix = raw[:col].decode("utf-8", errors="replace")
        text = raw.decode("utf-8", errors="replace")
        caret_at = len(prefix)
        start = 0
        if len(text) > MAX_SHOWN_LINE:
            start = max(0, min(caret_at - MAX_SHOWN_LINE // 2, len(text) - MAX_SHOWN_LINE))
            text = text[start : start + MAX_SHOWN_LINE]
        shown = "".join(ch if ch.isprintable() or ch == "\t" else "?" for ch in text)
        pad = "".join("\t" if ch == "\t" else " " for ch in shown[: caret_at - start])
        return [shown, pad + "^"]

    def _source(self, path: str) -> bytes | None:
        if path not in self.sources:
            try:
                # Only plain files of source size: a message must never hang on a FIFO. Opened
                # without blocking and checked with fstat (a name checked first could become
                # a FIFO before the open); the read stops at the bound (a file still growing).
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
                with os.fdopen(fd, "rb") as handle:
                    info = os.fstat(fd)
                    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_EXCERPT_FILE_BYTES:
                        return None
                    data = read_at_most(handle, MAX_EXCERPT_FILE_BYTES)
                if len(data) > MAX_EXCERPT_FILE_BYTES:
                    return None
                self.sources[path] = data
            except OSError:
                return None
        return self.sources[path]

    def repeat_notes(self, limit: int = 10) -> str:
        """One line per diagnostic that came again, with its count (the most repeated first),
        for the end of a run: a message said 200 times is read once."""
        repeated = sorted(((n, d) for d, n in self.repeats.items() if n),
                          key=lambda item: -item[0])
        lines = [f"note: shown once above, repeated {n} more time{'s' if n != 1 else ''}: "
                 f"{d.headline()}" for n, d in repeated[:limit]]
        if len(repeated) > limit:
            lines.append(f"note: {len(repeated) - limit} more diagnostics were repeated")
        return "".join(line + "\n" for line in lines)

    def summary(self) -> str:
        parts = []
        for name in ("error", "warning"):
            n = self.counts[name]
            if n:
                parts.append(f"{n} {name}{'s' if n != 1 else ''}")
        return ", ".join(parts)


#: what varies between messages of one template: quoted names, file:line:col, numbers
_VARYING = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\S+:\d+:\d+|\b\d+(?:\.\d+)?\b")


def template(message: str) -> str:
    """``message`` with the parts that vary between instances of one warning replaced:
    ``kernel 'k3' launched at line 40 ...`` and ``kernel 'k7' launched at line 52 ...`` have
    the same template."""
    return _VARYING.sub("_", message)


#: further locations listed after a collapsed warning
MAX_LISTED = 12


def _places(first: Diagnostic, more: list[Diagnostic]) -> str:
    """``lines 12, 30, 41, ...`` (in the first one's file), ``other.c:3``, or ``no location``."""
    here = first.location.file if first.location is not None else None
    lines, places = [], []
    for diag in more:
        loc = diag.location
        if loc is None:
            places.append("no location")
        elif loc.file == here:
            lines.append(str(loc.line))
        else:
            places.append(f"{loc.file}:{loc.line}")
    shown = []
    if lines:
        shown.append(("line " if len(lines) == 1 else "lines ") + ", ".join(lines[:MAX_LISTED])
                     + (", ..." if len(lines) > MAX_LISTED else ""))
    unique = list(dict.fromkeys(places))
    if unique:
        shown.append(", ".join(unique[:MAX_LISTED]) + (", ..." if len(unique) > MAX_LISTED
                                                       else ""))
    return "; ".join(shown)


def silenced_from_env() -> tuple[str, ...]:
    """Warning-id patterns from ``S2S_SILENCE`` (comma-separated), for build integrations."""
    value = os.environ.get("S2S_SILENCE", "")
    return tuple(p.strip() for p in value.split(",") if p.strip())
