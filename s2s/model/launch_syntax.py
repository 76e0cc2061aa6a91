"""The launch brackets as nvcc reads them: ``<<<`` and ``>>>``, also written with blanks
between the angle brackets (``k << < grid, block >> > (args)``, as Rodinia's particlefilter
does). nvcc accepts the spaced form; clang does not. The front end hands clang the file with
each spaced bracket closed up (``<< <`` -> ``<<< ``: same length, so every offset holds), and
the rewrites edit the brackets as written (``LaunchTokens.open_len``/``close_len``).

``mask`` blanks comments and literals so that searches for brackets see code only.
"""

from __future__ import annotations

import re

#: a launch's opening bracket, possibly spaced (blanks, no newline, between the angles)
OPEN = re.compile(rb"<<[ \t]*<")
_SPACED_OPEN = re.compile(rb"<<[ \t]+<")
_CLOSE = re.compile(rb">>[ \t]*>")
_NAME_END = re.compile(rb"[A-Za-z_0-9>][ \t]*\Z")


def mask(source: bytes) -> bytes:
    """``source`` with the insides of comments, string and character literals replaced by
    spaces (newlines kept), so token searches see code only."""
    out = bytearray(source)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != 0x0A:
                out[k] = 0x20

    i, n = 0, len(source)
    while i < n:
        two = source[i:i + 2]
        if two == b"//":
            end = source.find(b"\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif two == b"/*":
            end = source.find(b"*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif source[i] in (0x22, 0x27):                  # " or '
            j = i + 1
            while j < n and source[j] not in (source[i], 0x0A):
                j += 2 if source[j] == 0x5C else 1
            blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return bytes(out)


def closing_bracket(masked: bytes, pos: int, end: int) -> tuple[int, int] | None:
    """(start, end) of the ``>>>`` (or ``>> >``) closing a launch configuration that opens
    before ``pos``, at nesting depth 0 of ``()[]{}``; None when there is none before ``end``
    or before the statement ends."""
    depth = 0
    while pos < end:
        ch = masked[pos:pos + 1]
        if ch in (b"(", b"[", b"{"):
            depth += 1
        elif ch in (b")", b"]", b"}"):
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and ch == b";":             # a statement ends: no configuration
            return None
        elif depth == 0 and ch == b">":
            found = _CLOSE.match(masked, pos, end)
            if found:
                return found.start(), found.end()
        pos += 1
    return None


def spaced_brackets(source: bytes) -> list[tuple[int, int]]:
    """(start, end) of every launch bracket written with blanks inside, in code (not in a
    comment or literal), for an opening bracket after a name or template arguments (not
    ``operator<< <T>``) with its matching closing bracket; [] for most files (checked first
    with one search)."""
    if not _SPACED_OPEN.search(source) or not re.search(rb">>[ \t]+>", source):
        return []
    masked = mask(source)
    found = []
    for match in _SPACED_OPEN.finditer(masked):
        before = masked[max(0, match.start() - 80):match.start()]
        if not _NAME_END.search(before) or before.rstrip().endswith(b"operator"):
            continue
        close = closing_bracket(masked, match.end(), len(masked))
        if close is not None and close[1] - close[0] > 3:
            found += [(match.start(), match.end()), close]
    return found


def closed_up(source: bytes) -> bytes:
    """``source`` with each spaced launch bracket closed up and padded to its length (what
    clang is given; nvcc reads both forms alike)."""
    spans = spaced_brackets(source)
    if not spans:
        return source
    out = bytearray(source)
    for start, end in spans:
        bracket = out[start:start + 1] * 3
        out[start:end] = bracket + b" " * (end - start - 3)
    return bytes(out)
