"""Raw-byte scanning of short source ranges: statement headers and brackets.

libclang hides which child of a ``for``/``if``/``switch`` is the init, the condition or the
increment (missing parts are simply absent), so a header is scanned on the raw bytes from
the keyword to its closing parenthesis, comments, strings and character literals skipped,
and each child is placed by its offset relative to the ``;``/``)`` positions found there.
The scan finds punctuation only; it decides nothing about variables.
"""

from __future__ import annotations

# --------------------------------------------------------------------------------------------
# Raw-byte scanning of short source ranges (headers, brackets).



def skip_space(src: bytes, i: int) -> int:
    """Skip whitespace and comments from ``i``."""
    n = len(src)
    while i < n:
        c = src[i]
        if c in b" \t\r\n\f\v":
            i += 1
        elif src.startswith(b"//", i):
            nl = src.find(b"\n", i)
            i = n if nl < 0 else nl + 1
        elif src.startswith(b"/*", i):
            close = src.find(b"*/", i + 2)
            i = n if close < 0 else close + 2
        elif src.startswith(b"\\\n", i):
            i += 2
        else:
            break
    return i


def _skip_literal(src: bytes, i: int) -> int:
    """``src[i]`` opens a string or character literal: return the offset after it."""
    quote = src[i]
    if quote == ord('"') and i > 0 and src[i - 1] == ord("R"):
        open_paren = src.find(b"(", i)
        if open_paren > 0:
            close = src.find(b")" + src[i + 1 : open_paren] + b'"', open_paren)
            if close > 0:
                return close + open_paren - i + 1
    j = i + 1
    n = len(src)
    while j < n and src[j] != quote:
        j += 2 if src[j] == ord("\\") else 1
    return j + 1


def _in_number(src: bytes, i: int) -> bool:
    """Is the ``'`` at ``i`` a C++14 digit separator (``1'000``) rather than a char literal?"""
    j = i
    while j > 0 and (chr(src[j - 1]).isalnum() or src[j - 1] in b"_.'"):
        j -= 1
    return j < i and chr(src[j]).isdigit()


def balanced_group(src: bytes, i: int, limit: int | None = None) -> tuple[int, list[int]] | None:
    """``src[i]`` is an opening bracket: its matching closer and the ``;`` at depth one."""
    depth = 0
    semis: list[int] = []
    n = len(src) if limit is None else min(limit, len(src))
    while i < n:
        c = src[i]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth == 0:
                return i, semis
        elif c == ord(";") and depth == 1:
            semis.append(i)
        elif c == ord('"') or (c == ord("'") and not _in_number(src, i)):
            i = _skip_literal(src, i)
            continue
        elif c == ord("/") and src[i + 1 : i + 2] in (b"/", b"*"):
            i = skip_space(src, i)
            continue
        i += 1
    return None


def statement_header(src: bytes, start: int, keyword: bytes) -> tuple[int, list[int]] | None:
    """The ``)`` closing a ``for``/``if``/``while``/``switch`` header and its top-level ``;``.

    None when the statement's text does not start with the keyword (it came from a macro) or
    has no parenthesised header (``if consteval``).
    """
    if not src.startswith(keyword, start):
        return None
    i = skip_space(src, start + len(keyword))
    if keyword == b"if" and src.startswith(b"constexpr", i):
        i = skip_space(src, i + len(b"constexpr"))
    if src[i : i + 1] != b"(":
        return None
    return balanced_group(src, i)
