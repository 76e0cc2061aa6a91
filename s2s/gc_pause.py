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
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def call(function: Callable[..., T], *args, **kwargs) -> T:
    """``function(*args, **kwargs)`` with automatic cycle collection off (nesting is fine)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return function(*args, **kwargs)
    finally:
        if enabled:
            gc.enable()
