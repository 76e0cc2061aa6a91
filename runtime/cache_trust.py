"""Which cache entries may be used: compiled kernels, the C library, cubins, check verdicts.

A cache entry is loaded into the process (a kernel module, the runtime's C library) or decides
what s2s emits (the nvcc-check verdict), so one planted by someone else is code run as the
user or a rewrite dropped or passed (issue 32, item 8). An entry is used only when it is a
regular file (not a link) owned by the user and writable by no one else, in a directory of
the same kind; anything else is ignored and rebuilt. A cache directory that is not the user's
own is replaced by a private one for the run (said once on stderr). s2s imports this module;
it imports nothing of s2s.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

#: group- and other-write bits: an entry with either could have been changed by someone else
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def _owned_and_private(info: os.stat_result) -> bool:
    return info.st_uid == os.geteuid() and not info.st_mode & _OTHERS_WRITE


def usable(entry: str | os.PathLike) -> bool:
    """``entry`` exists and may be used: a regular file, not a symbolic link, owned by this
    user and writable by no one else, in a directory of the same kind."""
    try:
        info = os.lstat(entry)
        folder = os.stat(os.path.dirname(os.path.abspath(entry)))
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and _owned_and_private(info) and _owned_and_private(folder)


def publish(tmp: str | os.PathLike, target: str | os.PathLike) -> None:
    """Move a finished ``tmp`` to ``target`` writable by the owner only (a compiler's output
    follows the umask, which may let the group write), so the next run can use it."""
    mode = stat.S_IMODE(os.stat(tmp).st_mode)
    os.chmod(tmp, mode & ~_OTHERS_WRITE)
    os.replace(tmp, target)


def user_cache_dir(name: str) -> Path:
    """``$XDG_CACHE_HOME/s2s/<name>`` (``~/.cache`` when it is unset); a relative
    XDG_CACHE_HOME is ignored, as the XDG base directory specification says (it would put the
    cache in the current folder). Every s2s cache under the user's cache folder starts here."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "s2s" / name


def own_directory(path: str | os.PathLike, what: str) -> Path:
    """``path`` created if missing (writable by the owner only) and returned when it is the
    user's own and writable by no one else; otherwise a private temporary directory for this
    process, said once on stderr. A relative ``path`` is made absolute."""
    path = Path(os.path.abspath(path))
    try:
        path.mkdir(mode=0o755, parents=True, exist_ok=True)
        if _owned_and_private(os.stat(path)):
            return path
        problem = "is not owned by you or may be written by others"
    except OSError as error:
        problem = f"cannot be used ({error.strerror or error})"
    return _private_fallback(str(path), problem, what)


@functools.cache
def _private_fallback(path: str, problem: str, what: str) -> Path:
    fallback = Path(tempfile.mkdtemp(prefix="s2s-cache-"))
    atexit.register(shutil.rmtree, fallback, True)
    sys.stderr.write(f"s2s: {what} {path} {problem}; using {fallback} for this run\n")
    return fallback
