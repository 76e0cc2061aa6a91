"""The three printers of one edit set: in place, unified diff, and check.

All three start from the same (path, original bytes, new bytes) triples produced by applying
an :class:`~s2s.edits.EditSet`, so what ``--diff`` shows is exactly what ``--in-place`` writes
and what ``--check`` reports.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from dataclasses import dataclass

from s2s.diagnostics import InputError


@dataclass(frozen=True)
class FileChange:
    """The original and rewritten bytes of one file."""

    path: str
    before: bytes
    after: bytes

    @property
    def changed(self) -> bool:
        return self.before != self.after


def write_in_place(change: FileChange, backup_suffix: str | None = None) -> None:
    """Replace ``change.path`` atomically: temp file in the same directory, fsync, rename.

    The file's permission bits are kept. With ``backup_suffix`` the original is first written
    to ``path + backup_suffix``. The user's file is never left half-written: on any error the
    temp file is removed and the original stays untouched.
    """
    if not change.changed:
        return
    path = change.path
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as exc:
        raise InputError(f"cannot stat {path}: {exc.strerror}") from exc
    if backup_suffix:
        atomic_write(path + backup_suffix, change.before, mode)
    atomic_write(path, change.after, mode)


def atomic_write(path: str, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory, fsync, rename."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".s2s-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def unified_diff(change: FileChange, root: str | None = None, context: int = 3) -> str:
    """A unified diff with ``a/`` and ``b/`` prefixes that ``git apply`` and ``patch -p1`` accept.

    Paths are shown relative to ``root`` (default: the current directory). Bytes that are not
    UTF-8 survive the round trip (surrogateescape), and a last line without a newline gets the
    ``\\ No newline at end of file`` marker.
    """
    if not change.changed:
        return ""
    rel = os.path.relpath(os.path.abspath(change.path), root or os.getcwd()).replace(os.sep, "/")
    old = _lines(change.before)
    new = _lines(change.after)
    # A name with a space ends with a tab, as git writes it, or `patch` stops at the space.
    end = "\t\n" if " " in rel else "\n"
    out = []
    for i, line in enumerate(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}", n=context)):
        if i < 2:  # the two file headers (a removed "--x;" also starts with "---")
            out.append(line.rstrip("\n") + end)
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(data: bytes) -> list[str]:
    """Split on ``\\n`` only (str.splitlines would also split on \\r, \\f and others)."""
    text = data.decode("utf-8", errors="surrogateescape")
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def diff_bytes(text: str) -> bytes:
    """Encode a diff produced by :func:`unified_diff` back to the file's original bytes."""
    return text.encode("utf-8", errors="surrogateescape")
