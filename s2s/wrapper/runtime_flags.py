"""Compiler and linker flags that rewritten sources need from the s2s runtime.

Sources rewritten by ``mgpu`` call the s2s multi-GPU runtime (issue #6), so compiling them
needs its include directory (``s2s_mgpu.h``, ``s2s_runtime.h``) and linking them needs its C
library, built on demand by :mod:`runtime.capi_build` (cached). When the library cannot be
built here (no shared libpython, no C compiler), :func:`mgpu_runtime_flags` raises
:class:`RuntimeUnavailable` and the wrapper compiles without the pass, saying why. So it does
for nvcc when a path of the runtime holds characters nvcc's shell would act on
(:mod:`s2s.shell_safe`): ``-Xlinker`` values go to that shell bare, and the run path
is baked into the program, so no stand-in link will do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runtime import capi_build
from runtime.errors import BackendUnavailable, CompileError
from s2s.shell_safe import safe_characters

#: Passes whose output calls into the s2s runtime.
RUNTIME_PASSES = frozenset({"mgpu"})


class RuntimeUnavailable(Exception):
    """The runtime a pass needs cannot be compiled against or linked here."""


@dataclass(frozen=True)
class RuntimeFlags:
    compile: tuple[str, ...] = ()  # before the sources: include directories, macros
    link: tuple[str, ...] = ()  # at the end of a link command: library paths and libraries


def runtime_flags(passes: Iterable[str], for_nvcc: bool = False) -> RuntimeFlags:
    """The flags the selected passes need; raises RuntimeUnavailable when they cannot be had."""
    if "mgpu" in passes:
        return mgpu_runtime_flags(for_nvcc)
    return RuntimeFlags()


def mgpu_runtime_flags(for_nvcc: bool = False) -> RuntimeFlags:
    """The include and link flags of the s2s runtime's C library (built if needed).

    ``-Xlinker -rpath -Xlinker DIR`` is understood by nvcc and by gcc/clang alike, so the
    program finds the library where it was built without LD_LIBRARY_PATH."""
    try:
        link = capi_build.link_flags()
    except (BackendUnavailable, CompileError, OSError) as error:
        raise RuntimeUnavailable(f"the s2s runtime library cannot be built here: {error}") from None
    flags = RuntimeFlags(compile=(f"-I{capi_build.HEADER_DIR}",), link=tuple(link))
    unsafe = [f for f in (*flags.compile, *flags.link) if not safe_characters(f)]
    if for_nvcc and unsafe:
        raise RuntimeUnavailable(f"the s2s runtime's flag {unsafe[0]!r} has characters nvcc "
                                 "would hand to a shell; keep s2s and its cache (S2S_CPU_CACHE) under "
                                 "plain paths")
    return flags
