"""Make what the compiler wrote about the rewritten copies name the user's files instead.

The compiler saw ``/tmp/s2s-wrap-XXXX/0/kernel.cu``; messages, preprocessed output and
dependency files must say ``src/kernel.cu`` as a plain compile would, or make would depend on a
file that is gone a moment later. Messages and ``-E`` output only need the path replaced.
Dependency files need more: gcc also lists the file named by our ``#line`` directives (the
user's source, already the first prerequisite) among the prerequisites, and with ``-MP`` gives
it a phony rule; both repeats are removed so the file matches plain nvcc's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping


def substitute(data: bytes, replacements: Mapping[bytes, bytes]) -> bytes:
    """``data`` with every temporary path replaced by the user's spelling."""
    for temp, user in replacements.items():
        data = data.replace(temp, user)
    return data


def make_escape(path: bytes) -> bytes:
    """A path as gcc writes it in a make rule (``$`` doubled, blanks and ``#`` escaped)."""
    return path.replace(b"$", b"$$").replace(b" ", b"\\ ").replace(b"\t", b"\\\t") \
        .replace(b"#", b"\\#")


def fix_dependencies(text: bytes, replacements: Mapping[bytes, bytes]) -> bytes:
    """A dependency file naming the user's sources instead of their temporary copies, each
    listed once per rule and without a phony rule of its own."""
    escaped = {make_escape(temp): make_escape(user) for temp, user in replacements.items()}
    text = substitute(text, escaped)
    for user in escaped.values():
        text = _drop_repeats(text, user)
    return text


def _drop_repeats(text: bytes, token: bytes) -> bytes:
    """Remove ``token`` where it repeats among one rule's prerequisites, and its phony rule."""
    pattern = re.compile(rb"(?:(?<=\s)|^)" + re.escape(token) + rb"(?=\s|\\?$)")
    lines = text.split(b"\n")
    out: list[bytes] = []
    seen = False  # token already listed in the current rule
    continued = False  # the previous line ended with a backslash
    for line in lines:
        if not continued:
            seen = False
            if line.strip() == token + b":":
                if out and out[-1].strip() == b"":
                    out.pop()  # the blank line that separates phony rules
                continue
        body = line
        head, colon, rest = (b"", b"", line)
        if not continued and b":" in line:
            head, colon, rest = line.partition(b": ") if b": " in line else line.partition(b":")
            body = rest
        body, seen = _drop_token(body, pattern, seen)
        new_line = head + colon + body
        ends_continued = line.rstrip().endswith(b"\\")
        if new_line.strip() in (b"\\", b"") and line.strip() not in (b"\\", b""):
            if not ends_continued and out and out[-1].rstrip().endswith(b"\\"):
                out[-1] = out[-1].rstrip()[:-1].rstrip()  # the rule now ends one line earlier
            continued = ends_continued
            continue
        out.append(new_line)
        continued = ends_continued
    return b"\n".join(out)


def _drop_token(body: bytes, pattern: re.Pattern, seen: bool) -> tuple[bytes, bool]:
    """Keep the first occurrence of the token in a rule, remove the later ones."""
    pieces = []
    last = 0
    for match in pattern.finditer(body):
        if not seen:
            seen = True
            continue
        start = match.start()
        while start > last and body[start - 1:start] in (b" ", b"\t"):
            start -= 1
        pieces.append(body[last:start])
        last = match.end()
    pieces.append(body[last:])
    return b"".join(pieces), seen
