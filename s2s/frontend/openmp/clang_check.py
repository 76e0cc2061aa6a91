"""A second opinion on a rewritten OpenMP file: ``clang-16 -fsyntax-only`` with offloading.

libclang (libclang-ng, a newer clang) accepts some clauses that the clang the user builds
with rejects: ``map(to: v.data()[0:n])`` parses there, while clang 16 says "expected
addressable lvalue in 'map' clause". So when ``clang-16`` is on PATH, a rewrite that parses
is also compiled with ``-fsyntax-only -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu`` and the
user's flags (``--`` or compile_commands.json); its errors drop the edits as libclang's would
(:func:`s2s.driver.checked_output`). With ``host_only`` the device side is left out
(``-fopenmp`` alone, about half the cost): the caller asks so only where the edits lie outside
the code compiled for the device (:mod:`s2s.analysis.omp.device_code`). The rewritten bytes go in on stdin (nothing is written
next to the user's file), with the file's directory first on the quote-include path so its
``#include "x.h"`` still resolves. An argv list, never a shell. Results are cached by the
bytes and flags: the whole-program check asks again for files whose part did not change.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess

from s2s.diagnostics import Diagnostic, Location
from s2s.frontend.core.allowed_flags import allowed_flags, anchored
from s2s.frontend.core.flags import without_openmp_flags

CLANG = "clang-16"
OFFLOAD = ("-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu")
#: the host side alone (the edits lie outside every part of the file compiled for the device)
HOST = ("-fopenmp",)
#: seconds one check may take before it is given up (the rewrite is then kept)
TIMEOUT_S = 120
_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$",
                    re.M)


def available() -> str | None:
    """The clang-16 to run, or None (absent, or ``S2S_CLANG_CHECK=0``)."""
    if os.environ.get("S2S_CLANG_CHECK", "1") == "0":
        return None
    return shutil.which(CLANG)


def identity() -> str | None:
    """The clang-16 that checks, as the fact cache keys its verdicts: its path, size and
    modification time (None: no check is made)."""
    clang = available()
    if clang is None:
        return None
    try:
        info = os.stat(clang)
    except OSError:
        return None
    return f"{clang}:{info.st_size}:{info.st_mtime_ns}"


def command(clang: str, path: str, language: str, user_flags: tuple[str, ...],
            host_only: bool = False) -> list[str]:
    """The argv of the check of ``path``'s rewrite (read from stdin), to run in ``path``'s
    folder (:func:`_errors`): a quoted include of stdin is searched first in the working
    directory, where the file's own is searched first in its folder; relative paths of the
    user's flags are anchored to this process's working directory, where they were given."""
    argv = [clang, "-fsyntax-only", *(HOST if host_only else OFFLOAD), "-x", language]
    if language == "c++" and not any(f.startswith(("-std=", "--std=")) for f in user_flags):
        argv.append("-std=c++17")
    directory = os.path.dirname(os.path.abspath(path))
    kept = anchored(without_openmp_flags(allowed_flags(user_flags)[0]), os.getcwd())
    return argv + ["-iquote", directory, *kept, "-w", "-"]


def syntax_errors(data: bytes, path: str, language: str, user_flags: tuple[str, ...],
                  host_only: bool = False) -> list[Diagnostic]:
    """clang-16's errors on ``data`` (the rewrite of ``path``); [] when it compiles, when
    clang-16 is not there, or when it could not be run (the libclang check still stands)."""
    return list(checked(data, path, language, user_flags, host_only) or ())


def checked(data: bytes, path: str, language: str, user_flags: tuple[str, ...],
            host_only: bool = False) -> list[Diagnostic] | None:
    """:func:`syntax_errors`, but None when no check was made (no clang-16, another
    language, a run that failed or timed out): a verdict worth keeping is a list."""
    clang = available()
    if clang is None or language not in ("c", "c++"):
        return None
    found = _errors(data, path, language, tuple(user_flags), clang, os.getcwd(), host_only)
    return None if found is None else list(found)


@functools.lru_cache(maxsize=256)
def _errors(data: bytes, path: str, language: str, user_flags: tuple[str, ...], clang: str,
            working_directory: str, host_only: bool) -> tuple[Diagnostic, ...] | None:
    try:        # (working_directory: the flags' relative paths are anchored there)
        done = subprocess.run(command(clang, path, language, user_flags, host_only), input=data,
                              capture_output=True, timeout=TIMEOUT_S, check=False,
                              cwd=os.path.dirname(os.path.join(working_directory, path)))
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode == 0:
        return ()
    text = done.stderr.decode("utf-8", "replace")
    out = []
    for match in _ERROR.finditer(text):
        where = match["file"]
        message = f"clang-16: {match['msg']}"
        if where == "<stdin>":
            at = Location(path, int(match["line"]), int(match["col"]))
        else:
            at, message = None, f"{message} (in {where}:{match['line']})"
        out.append(Diagnostic.error(message, "clang-syntax", at))
    if not out:
        first = text.strip().splitlines()[:1]
        out.append(Diagnostic.error(f"clang-16 -fsyntax-only failed: "
                                    f"{first[0] if first else done.returncode}", "clang-syntax"))
    return tuple(out)
