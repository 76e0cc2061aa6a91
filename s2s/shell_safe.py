"""Strings that s2s may add to an nvcc command line without a shell ever reading them.

nvcc runs its host compiler (and cicc, ptxas ...) through ``sh -c``. It puts file names and
``-I``/``-D`` values in double quotes, where ``$(...)``, ``$NAME``, backquotes and ``\\`` still
act (``-I`` escapes ``$`` but not backquotes), and ``-Xcompiler``/``-Xlinker`` values go in
bare, split at commas. Measured with ``nvcc -dryrun`` (nvcc 13.0); a directory named
``e;touch PWNED;f`` passed as ``-Xcompiler -iquote,<dir>`` ran ``touch``.

So a path that s2s adds must be :func:`is_safe`: made of characters no shell treats
specially in any of those places (no comma either). A directory that is not gets a stand-in,
a symbolic link with a safe name in s2s's own temporary directory (:func:`alias`), and that
directory itself lies under a safe root (:func:`temp_root`). Paths the user wrote on the
command line reach nvcc as the user wrote them, as without s2s.
"""

from __future__ import annotations

import os
import re
import tempfile

_SAFE_CHARACTERS = re.compile(r"[A-Za-z0-9_./+%:=@-]*\Z")
#: a first character that no compiler reads as the start of an option, a response file
#: (``@file``) or a sysroot-relative directory (``=dir``)
_SAFE_START = re.compile(r"[A-Za-z0-9_./+%:]")
#: what a double-quoted string in nvcc's shell command does not keep literally
_NOT_QUOTABLE = re.compile(r'[$`"\\\n]')


def is_safe(text: str) -> bool:
    """Can the path ``text`` stand anywhere in nvcc's shell command, bare or quoted,
    unchanged, and still be read as a path?"""
    return bool(_SAFE_START.match(text)) and safe_characters(text)


def safe_characters(text: str) -> bool:
    """Is ``text`` (an option with its value, say) made of characters no shell acts on?"""
    return bool(_SAFE_CHARACTERS.match(text))


def quotable(text: str) -> bool:
    """Does nvcc's double-quoting keep ``text`` as it is (file names, ``-D`` values)?"""
    return _NOT_QUOTABLE.search(text) is None


def alias(directory: str, links: str, name: str) -> str:
    """``directory`` when it is safe, else a symbolic link ``links/name`` to it (``links``
    must be safe and exist; the link goes when ``links`` is removed, the directory stays)."""
    if is_safe(directory):
        return directory
    link = os.path.join(links, name)
    os.symlink(os.path.abspath(directory), link)
    return link


def temp_root() -> str | None:
    """A safe directory to create temporary directories in: the usual one (``TMPDIR``), or
    ``/tmp`` when that one's path is not safe; None when neither will do."""
    for candidate in (tempfile.gettempdir(), "/tmp"):
        if is_safe(candidate) and os.path.isdir(candidate) and os.access(candidate, os.W_OK):
            return candidate
    return None
