"""Cyclic garbage collection paused while s2s processes a file or a whole program.

A run builds a heap that lives until its end (every file's model: frozen dataclasses, spans,
tuples) while it allocates millions of short-lived objects (cursors, walk nodes, analysis
states). CPython's cycle collector is triggered by allocation counts, and each of its full
collections traverses the whole live heap: on a generated 50,000-line program (10 files, 2,000
target regions) 29 full collections took 5.7 of 17 s of CPU and freed nothing, since the one
large cycle of the front end (a unit's cached walk and the context holding it) is broken
explicitly (:meth:`s2s.frontend.core.context.ExtractContext.release`) and the rest is freed by
reference counting. So automatic collection is off during a run and back on afterwards (as
the caller had it); what a run leaves in cycles is collected then, as usual.

A command-line process (:func:`command_line_process`) ends with its command, and its run's
results live until they are printed: there the objects alive when its first run ends are
frozen (``gc.freeze``) before collection is back on. Else the first collections after the run
traverse everything it built (0.5 s of CPU after a cold ``s2s omp`` over the 50,000-line
program, 5% of the run) and free nothing. Frozen objects are still freed by reference
counting; what that run left in cycles (about 4,000 objects after an OpenMP program, 100 per
CUDA file) stays to the end. Only the first run of the process is frozen, so a command that
runs many (``s2s verify`` over programs, a pass over many files) keeps that bound. A library
caller or a test keeps the usual collector.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
#: set when this process is one command-line run (s2s's console script, ``python -m s2s``)
_COMMAND_LINE: list[bool] = []


def command_line_process() -> None:
    """Say that this process is one command-line run: the objects its first run leaves are
    frozen when it ends (see the module doc)."""
    _COMMAND_LINE[:] = [True]


def call(function: Callable[..., T], *args, **kwargs) -> T:
    """``function(*args, **kwargs)`` with automatic cycle collection off (nesting is fine)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return function(*args, **kwargs)
    finally:
        if enabled:
            if _COMMAND_LINE:
                _COMMAND_LINE.clear()       # (the first run only: see the module doc)
                gc.freeze()
            gc.enable()
