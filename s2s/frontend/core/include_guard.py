"""Refuse includes of special files before libclang opens them.

libclang reads an included file to its end: ``#include "/dev/zero"`` fills memory until the
process is killed, and an include of a FIFO waits for a writer forever. libclang has no hook
to stop it, so the include directives of the source, and of the project headers they reach,
are looked at first, and every place an included name may resolve to (the includer's
directory, the ``-iquote``/``-I``/``-isystem``/``-idirafter`` directories of the flags, an
absolute path, a ``-include`` file) is checked with ``stat`` (a symbolic link to
``/dev/zero`` too): a FIFO, a device or a socket
there makes the file fail with ``[include-not-regular]`` before any parse.

The scan is conservative, not clang's lookup: a special file in any candidate directory is
refused even where an earlier directory would have won, and an include spelled through a
macro (``#include HEADER``) is not followed. Headers in system directories (``-isystem``,
``-idirafter``, the compiler's own) are checked, not scanned for their includes, and at most :data:`MAX_HEADERS` project
headers, each read only when it is a regular file within the source size bound.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence

from s2s.bounded_read import read_at_most
from s2s.diagnostics import InputError, Location

#: project headers scanned per source at most (a tree deeper than this is left to libclang)
MAX_HEADERS = 2000
#: bytes of one header scanned at most (as parse.MAX_SOURCE_BYTES)
MAX_HEADER_BYTES = 64 * 1024 * 1024

_DIRECTIVE = re.compile(rb'^[ \t]*#[ \t]*(?:include|include_next|import)[ \t]*'
                        rb'(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)
_DIR_FLAGS = {"-I": "project", "-iquote": "quote", "-isystem": "system", "-idirafter": "system"}


def check_includes(source: bytes, name: str, args: Sequence[str]) -> None:
    """Raise InputError when ``source`` (the file ``name``) or a project header it includes
    has an include that may resolve to a special file; ``args``: the parse's clang flags."""
    dirs = _search_dirs(args)
    for path in dirs["file"]:
        _refuse_special(path, name, 1, 1, 0, f"-include {path}")
    seen: set[str] = set()
    pending: list[tuple[bytes, str]] = [(source, name)]
    while pending and len(seen) <= MAX_HEADERS:
        text, includer = pending.pop()
        here = os.path.dirname(os.path.abspath(includer))
        for match in _DIRECTIVE.finditer(text):
            quoted = match.group(1) is not None
            header = os.fsdecode(match.group(1) or match.group(2))
            project = [here, *dirs["quote"], *dirs["project"]] if quoted else dirs["project"]
            line = text.count(b"\n", 0, match.start()) + 1
            for candidate in _candidates(header, dirs["system"]):
                _refuse_special(candidate, includer, line, 1, match.start(), header)
            for candidate in _candidates(header, project):
                _refuse_special(candidate, includer, line, 1, match.start(), header)
                real = os.path.realpath(candidate)
                if real not in seen and _is_regular(candidate):
                    seen.add(real)
                    data = _read_header(candidate)
                    if data is not None:
                        pending.append((data, candidate))


def _search_dirs(args: Sequence[str]) -> dict[str, list[str]]:
    """The directories of ``args`` by kind (quote: ``-iquote``; project: ``-I``; system:
    ``-isystem``, ``-idirafter``) and the ``-include`` files ('file'), joined (``-Idir``) or
    separate (``-I dir``)."""
    found: dict[str, list[str]] = {"quote": [], "project": [], "system": [], "file": []}
    items = list(args)
    for at, arg in enumerate(items):
        for flag, kind in (*_DIR_FLAGS.items(), ("-include", "file")):
            if arg == flag and at + 1 < len(items):
                value = items[at + 1]
            elif arg.startswith(flag) and len(arg) > len(flag) and flag != "-include":
                value = arg[len(flag):]
            else:
                continue
            found[kind].append(value)
            break
    return found


def _candidates(header: str, dirs: Iterable[str]) -> list[str]:
    """Every existing path ``header`` may name (itself when absolute)."""
    paths = [header] if os.path.isabs(header) else [os.path.join(d, header) for d in dirs]
    return [p for p in dict.fromkeys(paths) if os.path.lexists(p)]


def _refuse_special(path: str, includer: str, line: int, col: int, offset: int,
                    spelled: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing or unreadable: libclang reports it as it does
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode)
            or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "no plain file")
    raise InputError(f"the include of '{spelled}' may read {path}, which is {kind}: s2s does "
                     "not let libclang read special files (a device never ends, a FIFO waits "
                     "for a writer); the file is left as it is",
                     Location(includer, line, col, offset), id="include-not-regular")


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read_header(path: str) -> bytes | None:
    """A regular header's bytes, or None when it is too large or unreadable (libclang then
    says what it finds)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_HEADER_BYTES:
            return None
        return read_at_most(handle, MAX_HEADER_BYTES - 1)
