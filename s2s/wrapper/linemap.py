"""``#line`` directives that make a rewritten copy report the user's file and line numbers.

The wrapper compiles rewritten copies from a temporary directory; without help every compiler
message would name the copy and, below the first inserted line, the wrong line. The copy
therefore starts with ``#line 1 "<the user's path>"`` and, wherever the rewrite inserted or
removed lines, gets another ``#line N`` before the next unchanged line. Which lines are
unchanged comes from a line diff of the original and the final text, so this works for any
chain of passes without their edits.

A directive can only go where a new preprocessing line may start: not inside a block comment,
a string or raw string literal, or after a line ending in a backslash (a continued macro or
pragma). Such lines are skipped and the directive goes on the next line where it may.
"""

from __future__ import annotations

import difflib

BOM = b"\xef\xbb\xbf"
_IDENT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_DIGITS = frozenset(b"0123456789")


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their ``\\n`` (the last one may have none); only ``\\n`` ends a line."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def directive(line: int, name: str) -> bytes:
    """``#line LINE "NAME"`` with the name escaped as a C string literal."""
    return b'#line %d "%s"\n' % (line, c_string(name))


def c_string(text: str) -> bytes:
    """``text`` escaped for the inside of a C string literal (a path with quotes, backslashes
    or control characters in it must not end the literal or change its bytes)."""
    escaped = bytearray()
    for byte in text.encode("utf-8", errors="surrogateescape"):
        if byte in (0x22, 0x5C):  # '"' and '\'
            escaped += b"\\" + bytes([byte])
        elif byte < 0x20 or byte == 0x7F:
            escaped += b"\\%03o" % byte
        else:
            escaped.append(byte)
    return bytes(escaped)


def directive_safe_lines(lines: list[bytes]) -> list[bool]:
    """For each line: may a preprocessing directive be inserted before it?"""
    safe = [True] * len(lines)
    scanner = _Scanner()
    for number, line in enumerate(lines):
        safe[number] = scanner.at_line_start()
        scanner.feed(line)
    return safe


def add_line_directives(original: bytes, rewritten: bytes, name: str) -> bytes:
    """``rewritten`` with ``#line`` directives mapping its unchanged lines to ``original``'s
    line numbers in the file called ``name`` (as the user spelled it)."""
    bom = rewritten.startswith(BOM)
    old = split_lines(original[len(BOM):] if original.startswith(BOM) else original)
    new = split_lines(rewritten[len(BOM):] if bom else rewritten)
    if new and not new[-1].endswith(b"\n"):
        new[-1] += b"\n"  # the last line must end before nothing else: we never add after it
    safe = directive_safe_lines(new)
    before: dict[int, int] = {}  # new line index -> presumed number a directive sets there
    presumed = 1  # the number the compiler gives the next line
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        if j1 == j2:
            continue
        # Unchanged lines keep their number; new lines take the number of the original
        # line they replace or precede, so a message about them points near the edit.
        candidates = range(j1, j2) if tag == "equal" else range(j1, j1 + 1)
        if presumed != i1 + 1:
            for j in candidates:
                if safe[j]:
                    before[j] = i1 + 1 + (j - j1)
                    break
        start = before.get(j1, presumed)
        presumed = _number_after(j1, j2, start, before)
    out = [BOM] if bom else []
    out.append(directive(1, name))
    for j, line in enumerate(new):
        if j in before:
            out.append(directive(before[j], name))
        out.append(line)
    return b"".join(out)


def _number_after(j1: int, j2: int, start: int, before: dict[int, int]) -> int:
    """The presumed number of line ``j2`` given line ``j1`` has ``start`` and the directives
    placed in between."""
    number = start
    for j in range(j1, j2):
        if j in before:
            number = before[j]
        number += 1
    return number


class _Scanner:
    """Just enough of a C/C++ lexer to know whether a line starts in plain code."""

    def __init__(self):
        self.in_comment = False
        self.raw_end: bytes | None = None  # the ')delim"' that closes an open raw string
        self.continued = False  # the previous line ended with a backslash

    def at_line_start(self) -> bool:
        return not (self.in_comment or self.raw_end is not None or self.continued)

    def feed(self, line: bytes) -> None:
        body = line.rstrip(b"\r\n")
        self.continued = body.endswith(b"\\")
        i, n = 0, len(body)
        while i < n:
            if self.raw_end is not None:
                end = body.find(self.raw_end, i)
                if end < 0:
                    return
                i = end + len(self.raw_end)
                self.raw_end = None
            elif self.in_comment:
                end = body.find(b"*/", i)
                if end < 0:
                    return
                i = end + 2
                self.in_comment = False
            else:
                i = self._code(body, i)
                if i < 0:
                    return

    def _code(self, body: bytes, i: int) -> int:
        """Consume one token of plain code at ``i``; -1 when the rest of the line is done."""
        ch = body[i]
        if body.startswith(b"/*", i):
            self.in_comment = True
            return i + 2
        if body.startswith(b"//", i):
            return -1
        if ch in (0x22, 0x27):  # '"' or "'"
            return _skip_quoted(body, i)
        if ch in _DIGITS:
            return _skip_number(body, i)
        if ch in _IDENT:
            j = i
            while j < len(body) and body[j] in _IDENT:
                j += 1
            word = body[i:j]
            if j < len(body) and body[j] == 0x22 and word in (b"R", b"u8R", b"uR", b"UR", b"LR"):
                open_paren = body.find(b"(", j)
                if open_paren < 0:
                    return -1
                self.raw_end = b")" + body[j + 1:open_paren] + b'"'
                return open_paren + 1
            return j
        return i + 1


def _skip_quoted(body: bytes, i: int) -> int:
    quote = body[i]
    j = i + 1
    while j < len(body):
        if body[j] == 0x5C:  # backslash escape
            j += 2
            continue
        if body[j] == quote:
            return j + 1
        j += 1
    return len(body)


def _skip_number(body: bytes, i: int) -> int:
    """A pp-number, digit separators (1'000) and exponent signs included."""
    j = i + 1
    while j < len(body):
        ch = body[j]
        if ch in _IDENT or ch == 0x2E:  # alnum, '_', '.'
            j += 1
        elif ch == 0x27 and j + 1 < len(body) and body[j + 1] in _IDENT:
            j += 2
        elif ch in (0x2B, 0x2D) and body[j - 1] in b"eEpP":
            j += 1
        else:
            break
    return j
