"""Compiler and linker flags that rewritten sources need from the s2s runtime.

Sources rewritten by ``mgpu`` call the s2s multi-GPU runtime (issue #6), so compiling them
needs its include directory and linking them needs its library. The runtime is not merged
yet, so :func:`mgpu_runtime_flags` is a hook that says so instead of guessing paths: the
wrapper then treats ``mgpu`` as not available and compiles without it. When the runtime
lands, this function returns its flags (and the wrapper tests gain an mgpu build that runs
on the runtime's cpu devices).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: Passes whose output calls into the s2s runtime.
RUNTIME_PASSES = frozenset({"mgpu"})


class RuntimeUnavailable(Exception):
    """The runtime a pass needs cannot be compiled against or linked here."""


@dataclass(frozen=True)
class RuntimeFlags:
    compile: tuple[str, ...] = ()  # before the sources: include directories, macros
    link: tuple[str, ...] = ()  # at the end of a link command: library paths and libraries


def runtime_flags(passes: Iterable[str]) -> RuntimeFlags:
    """The flags the selected passes need; raises RuntimeUnavailable when they cannot be had."""
    if "mgpu" in passes:
        return mgpu_runtime_flags()
    return RuntimeFlags()


def mgpu_runtime_flags() -> RuntimeFlags:
    """HOOK (issue #6): the include and link flags of the s2s multi-GPU runtime.

    Not implemented because the runtime is not merged; raising keeps the wrapper honest: a
    source rewritten to call a runtime that cannot be linked would break the build.
    """
    raise RuntimeUnavailable("the s2s multi-GPU runtime is not merged yet (issue #6), so "
                             "sources rewritten by mgpu could not be compiled and linked")
