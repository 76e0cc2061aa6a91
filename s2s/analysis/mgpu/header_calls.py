"""CUDA runtime calls in the project headers a file includes, for the mgpu prologue.

Host wrappers live in headers as often as in the ``.cu`` file (``device_alloc``,
``copy_to_device(dst, src, n)`` around ``cudaMalloc``/``cudaMemcpy``). The rewritten file
sends the CUDA runtime calls to the s2s runtime with ``#define cudaX s2s_mgpu::X``; a header's
calls are reached only if those lines come before the header's ``#include``, and only if its
names are among them. A header that does not parse on its own has no model, so its calls are
found on its text (comments and literals blanked); the names decide only which redirections
the prologue defines and where it goes, which is harmless for a name the header only mentions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from s2s.analysis.mgpu.sites import mask

_CALL = re.compile(rb"\b(cuda[A-Z][A-Za-z0-9_]*)\s*\(")
_ANGLED = re.compile(rb"[ \t]*<([^>\n]+)>")
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*(if|ifdef|ifndef|endif|include)\b([ \t]*")?', re.M)


def header_api_names(texts: dict[str, bytes]) -> dict[str, str]:
    """{CUDA runtime function called in a header: the first header (path) that calls it}."""
    found: dict[str, str] = {}
    for path, text in texts.items():
        for match in _CALL.finditer(mask(text)):
            found.setdefault(match.group(1).decode(), path)
    return found


def top_level_includes(masked: bytes, limit: int) -> Iterator[re.Match]:
    """The ``#include`` lines before ``limit`` outside every ``#if`` block, in order (group 2
    of a match is set for a quoted, project include): a place there is active whatever the
    configuration, unlike one inside ``#ifdef TIMING ... #endif``."""
    depth = 0
    for match in _INCLUDE.finditer(masked, 0, limit):
        word = match.group(1)
        if word in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif word == b"endif":
            depth = max(depth - 1, 0)
        elif depth == 0:
            yield match


def before_project_includes(masked: bytes, limit: int, project: tuple[str, ...] = ()) -> int:
    """Offset of the first ``#include "..."`` line before ``limit`` outside every ``#if``
    block, or of an ``#include <...>`` naming one of the ``project`` headers (paths: found
    through ``-I``, as cuda-samples include ``<helper_cuda.h>``), or ``limit`` when there is
    none: the prologue goes there so that it precedes the headers' calls."""
    for match in top_level_includes(masked, limit):
        if match.group(2):
            return match.start()
        angled = _ANGLED.match(masked, match.end())
        if angled and _names_one_of(angled.group(1).decode(errors="replace"), project):
            return match.start()
    return limit


def _names_one_of(name: str, paths: tuple[str, ...]) -> bool:
    """Whether the include name ``name`` (``helper_cuda.h``, ``sub/x.h``) is the end of one
    of ``paths``."""
    tail = os.sep + os.path.normpath(name)
    return any(os.path.normpath(os.path.abspath(path)).endswith(tail) for path in paths)
