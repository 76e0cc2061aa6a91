"""Run parsing and analysis on a thread with a large stack, so deep nesting is an error, not a crash.

libclang's parser and s2s's walks over its cursors recurse once per nesting level. On the
8 MiB stack of the main thread (or of the 8 MiB thread libclang starts for each parse) about
1300 nested parentheses overflow the stack and the process dies with SIGSEGV, no message; 1000
nested blocks exceed Python's default recursion limit. Code that plain clang and gcc accept
must not crash the tool, so files are processed on one worker thread with a
:data:`STACK_BYTES` stack (reserved, touched only as deep as the input goes) and a matching
recursion limit, and libclang is told to parse on the calling thread (``LIBCLANG_NOTHREADS``,
read by libclang at every parse). clang itself stops at its bracket-depth limit (2048 with the
bundled libclang) with an ordinary error; deeper nesting of other kinds ends in a
``RecursionError`` that the driver reports as a per-file error (``nesting-too-deep``).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

#: Stack of the worker thread: 2048 nested brackets in clang take about 60 MiB.
STACK_BYTES = 512 * 1024 * 1024
#: Python frames allowed on that stack (a generator level costs well under 4 KiB of it).
RECURSION_LIMIT = 50_000

#: Seconds an interrupted caller waits for the worker to unwind (its ``finally`` blocks).
UNWIND_SECONDS = 10.0
#: Called with the worker thread when the caller is interrupted (a signal, Ctrl-C) while it
#: waits: a module whose work outlives a thread (child processes) registers how to stop it.
INTERRUPT_HOOKS: list[Callable[[threading.Thread], None]] = []

T = TypeVar("T")
_worker = threading.local()


def call(function: Callable[..., T], *args, **kwargs) -> T:
    """``function(*args, **kwargs)`` on a deep-stack thread; exceptions propagate unchanged.

    Called from a deep-stack thread already, it simply calls. The caller waits for the result,
    so only one thread runs Python at a time and the raised recursion limit (process-wide in
    CPython) is restored before the caller continues.
    """
    if getattr(_worker, "deep", False):
        return function(*args, **kwargs)
    os.environ["LIBCLANG_NOTHREADS"] = "1"
    outcome: dict[str, object] = {}

    def work() -> None:
        _worker.deep = True
        _worker.lost_recursion = False
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # handed to the caller's thread below
            outcome["error"] = error

    previous_stack = threading.stack_size(STACK_BYTES)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_recursion(previous_hook)
    previous_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
    try:
        # A daemon: an interrupt of the caller ends the process without waiting for a parse.
        thread = threading.Thread(target=work, name="s2s-deep-stack", daemon=True)
        thread.start()
    finally:
        threading.stack_size(previous_stack)
    try:
        thread.join()
    except BaseException:
        # The worker would run on, unseen: its hooks stop what it started (a verify run's
        # compiler and program), and it gets a moment to remove its temporary files.
        for hook in INTERRUPT_HOOKS:
            hook(thread)
        thread.join(UNWIND_SECONDS)
        raise
    finally:
        sys.setrecursionlimit(previous_limit)
        sys.unraisablehook = previous_hook
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def check_walks() -> None:
    """Raise RecursionError if a walk of libclang's cursors on this thread lost one since the
    last check (see :func:`_quiet_recursion`): its result is missing children, so the unit
    of work that called it (a file, a program) ends as too deeply nested, never half-walked."""
    if getattr(_worker, "lost_recursion", False):
        _worker.lost_recursion = False
        raise RecursionError("nesting too deep for a walk of libclang's cursors")


def forget_walks() -> None:
    """Start a unit of work with no lost walk noted (one noted outside any unit, e.g. while
    printing, must not fail the next file)."""
    _worker.lost_recursion = False


def _quiet_recursion(previous: Callable) -> Callable:
    """An unraisable-exception hook for the worker's run. Why: a RecursionError inside a ctypes
    callback (libclang's ``get_children`` visitor) cannot propagate; Python prints its traceback
    on stderr ("Exception ignored on calling ctypes callback function") and the walk goes on
    with children missing. On the worker it is noted instead, silently, and :func:`check_walks`
    turns it into a RecursionError of the file (the one ``nesting-too-deep`` diagnostic);
    anything else goes to ``previous``."""

    def hook(unraisable) -> None:
        if _is_recursion(unraisable.exc_type, unraisable.exc_value) and getattr(_worker, "deep", False):
            _worker.lost_recursion = True
            return
        previous(unraisable)

    return hook


def is_recursion(error: BaseException) -> bool:
    """``error`` is a RecursionError, also one ctypes met converting the arguments of a call
    into libclang (``ArgumentError: argument 3: RecursionError``, raised where the call was)."""
    return _is_recursion(type(error), error)


def _is_recursion(kind: type, value: BaseException | None) -> bool:
    """A RecursionError, also as ctypes reports one met while converting a callback's argument
    (``ctypes.ArgumentError: argument 1: RecursionError``)."""
    if issubclass(kind, RecursionError):
        return True
    return kind.__name__ == "ArgumentError" and "RecursionError" in str(value)
