"""Which compiler the wrapper runs, and the guard that stops it from running itself.

``s2s nvcc`` looks for the real nvcc in ``S2S_REAL_NVCC``, then the ``nvcc`` key of the
configuration, then on ``PATH``, skipping every candidate that is this program (a symlink
named ``nvcc`` pointing at ``s2s``, as ccache is used) and every compiler a wrapper further up
the process chain already launched. The latter come from the environment variable
``S2S_WRAPPED``, which the wrapper sets for the compiler it starts: a script ``nvcc`` that
calls ``s2s nvcc`` again then reaches the next nvcc on the PATH instead of looping, and the
nested wrapper only passes the command on (the outer one already ran the passes).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterable, Mapping

from s2s.wrapper.args import Table
from s2s.wrapper.cc_args import CC
from s2s.wrapper.nvcc_args import NVCC

GUARD = "S2S_WRAPPED"
_NVCC_NAME = re.compile(r"^nvcc(?:[-.]?\d+(?:\.\d+)*)?(?:\.exe)?$")
_CC_NAME = re.compile(r"^(?:[\w.]+-)*(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-\d+(?:\.\d+)*)?$")


class CompilerNotFound(Exception):
    """No real compiler can be run: nothing to fall back to either."""


def guarded(environ: Mapping[str, str]) -> tuple[str, ...]:
    """Real paths of the compilers wrappers up the process chain have launched."""
    return tuple(p for p in environ.get(GUARD, "").split(os.pathsep) if p)


def child_environ(environ: Mapping[str, str], compiler: str) -> dict[str, str]:
    """The environment for the compiler the wrapper starts: the guard lists it too."""
    env = dict(environ)
    entries = guarded(environ) + (os.path.realpath(compiler),)
    env[GUARD] = os.pathsep.join(dict.fromkeys(entries))
    return env


def self_paths() -> tuple[str, ...]:
    """Real paths this program runs as (the ``s2s`` script or a symlink to it)."""
    return (os.path.realpath(sys.argv[0]),) if sys.argv and sys.argv[0] else ()


def find_real_nvcc(configured: str | None, environ: Mapping[str, str],
                   own_paths: Iterable[str]) -> str:
    """The nvcc to run; raises CompilerNotFound with what was tried."""
    skip = set(guarded(environ)) | {os.path.realpath(p) for p in own_paths}
    if configured:
        found = shutil.which(configured, path=environ.get("PATH")) \
            if os.sep not in configured else configured
        if found is None or not os.access(found, os.X_OK):
            raise CompilerNotFound(f"the configured real nvcc '{configured}' is not an "
                                   "executable")
        if os.path.realpath(found) in skip:
            raise CompilerNotFound(f"the configured real nvcc '{configured}' is the wrapper "
                                   f"itself or leads back to it ({GUARD} lists it); set "
                                   "S2S_REAL_NVCC to the real nvcc")
        return found
    tried = []
    for directory in environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory or ".", "nvcc")
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        if os.path.realpath(candidate) in skip:
            tried.append(candidate)
            continue
        return candidate
    detail = f" (skipped, being the wrapper: {', '.join(tried)})" if tried else ""
    raise CompilerNotFound("no real nvcc found on PATH" + detail
                           + "; set S2S_REAL_NVCC to its path")


def check_launched(compiler: str, environ: Mapping[str, str], own_paths: Iterable[str]) -> str:
    """The compiler named on a launcher command line (``s2s /usr/bin/gcc ...``), checked."""
    found = compiler if os.sep in compiler else shutil.which(compiler, path=environ.get("PATH"))
    if found is None or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise CompilerNotFound(f"'{compiler}' is not an executable compiler")
    if os.path.realpath(found) in {os.path.realpath(p) for p in own_paths}:
        raise CompilerNotFound(f"'{compiler}' is s2s itself; give the real compiler")
    return found


def table_for(compiler: str) -> Table | None:
    """The option table of a compiler by its name (None: a compiler s2s does not know)."""
    name = os.path.basename(compiler)
    if _NVCC_NAME.match(name):
        return NVCC
    if _CC_NAME.match(name):
        return CC
    return None


def is_compiler_command(first: str, environ: Mapping[str, str]) -> bool:
    """Does ``s2s FIRST ...`` launch a compiler (CMake's ``<LANG>_COMPILER_LAUNCHER``)?

    A path to an executable, or the name of a known compiler found on PATH.
    """
    if not first or first.startswith("-"):
        return False
    if os.sep in first:
        return os.path.isfile(first) and os.access(first, os.X_OK)
    return table_for(first) is not None and \
        shutil.which(first, path=environ.get("PATH")) is not None
