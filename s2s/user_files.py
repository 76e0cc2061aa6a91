"""How s2s reads the user's files safely, and what a file was when s2s read it (issue 32).

A run takes seconds to minutes; an editor or a build may save into a source meanwhile.
:func:`remember` notes the modification time of each source as it is read (by device and
inode, so any spelling of the path finds it); :func:`check_unchanged`, called just before the
rename that replaces the file, compares size, modification time and SHA-256 of the bytes on
disk with what was read, and refuses (``[file-changed]``) on any difference. Also here:
:func:`file_kind`, :func:`read_regular` (the bounded read of a regular file that the readers
of compile databases, configuration and dependency files share) and :func:`decode_utf8`.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading

from s2s.bounded_read import read_at_most
from s2s.diagnostics import InputError

_LOCK = threading.Lock()
#: (device, inode) -> modification time in ns when the file was read
_READ_AT: dict[tuple[int, int], int] = {}


def remember(info: os.stat_result) -> None:
    """Note the modification time of a file just read (``info``: its fstat before the read)."""
    with _LOCK:
        _READ_AT[(info.st_dev, info.st_ino)] = info.st_mtime_ns


def check_unchanged(path: str, target: str, before: bytes) -> None:
    """Raise InputError ``[file-changed]`` unless ``target`` still holds ``before``, with the
    size and modification time it had when it was read."""
    try:
        info = os.stat(target)
        if info.st_size != len(before):
            raise _changed(path, f"its size went from {len(before):,} to {info.st_size:,} bytes")
        now = read_regular(target, len(before))
    except OSError as error:
        raise _changed(path, f"it cannot be read again: {error.strerror or error}") from error
    with _LOCK:
        read_at = _READ_AT.get((info.st_dev, info.st_ino))
    if read_at is not None and info.st_mtime_ns != read_at:
        raise _changed(path, "its modification time moved")
    if hashlib.sha256(now).digest() != hashlib.sha256(before).digest():
        raise _changed(path, "its bytes differ from those read")


def _changed(path: str, why: str) -> InputError:
    return InputError(f"{path} changed while s2s was running ({why}); not rewritten, so the "
                      "new text is kept: run s2s again", id="file-changed")


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (``a FIFO``)."""
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a plain file"


class NotRegular(OSError):
    """:func:`read_regular` met a FIFO, a device, a directory, or a file over its bound."""


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes.

    Opened non-blocking and checked with fstat before any read: a FIFO would wait for a writer
    forever, ``/dev/zero`` never ends. Raises :class:`NotRegular` (an OSError whose
    ``strerror`` says why) or the OSError of the open/read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(0, f"not a regular file ({file_kind(info.st_mode)})", path)
        if info.st_size > limit:
            raise NotRegular(0, f"{info.st_size:,} bytes, more than the {limit:,} s2s reads",
                             path)
        os.set_blocking(fd, True)
        data = read_at_most(handle, limit)
    if len(data) > limit:
        raise NotRegular(0, f"grew past the {limit:,} bytes s2s reads", path)
    return data


class NotUTF8(UnicodeError):
    """A configuration file or compile database in another encoding; says which file."""


def decode_utf8(data: bytes, path: str) -> str:
    """``data`` as UTF-8 text (a UTF-8 byte order mark dropped); :class:`NotUTF8` naming the
    file and, for UTF-16 (what some Windows editors save), the encoding found."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise NotUTF8(f"{path} is UTF-16 (it starts with a UTF-16 byte order mark); "
                         "save it as UTF-8")
    if b"\0" in data:
        raise NotUTF8(f"{path} holds NUL bytes (UTF-16 without a byte order mark, or not "
                         "text); save it as UTF-8")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise NotUTF8(f"{path} is not UTF-8 (byte 0x{data[error.start]:02x} at offset "
                         f"{error.start}); save it as UTF-8") from None
