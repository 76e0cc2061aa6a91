"""Parses a chain of passes would otherwise repeat, and the files every parse of a run read.

Two things of one run that :mod:`s2s.frontend.core.parse` consults (issue 30, the compiler
launcher's three passes):

* **A checked parse serves the next load.** In a chain (``s2s nvcc --s2s-passes=a,b,c``)
  pass *a*'s rewrite is parsed to check it (no errors), then pass *b* loads the very same
  bytes under the same name and options: the same parse twice, over the CUDA headers each
  time (most of a cold run). Inside :func:`reusing_checked_parses` the check's parse is kept
  (one, the last) and handed to the next :func:`s2s.frontend.core.parse.parse_source` of the
  same bytes, name and options - once. A translation unit is only read, never changed, so
  the load sees what a fresh parse would give. Outside that block nothing is kept (a single
  pass never loads its own rewrite, and a kept unit is memory).
* **What the run read.** Inside :func:`recording_inputs` every parse adds the names of the
  files it included (the main file's own name aside), and the fact cache adds those of the
  entries it serves: a result built from those parses and facts is a function of those
  files, the options and the code (the launcher's cache of whole rewrites,
  :func:`s2s.run_cache.cached_chain`, keys and checks its entries by them).
* **The files the chain's earlier passes generated.** mgpu's kernel table
  (``prog.cu.s2s_mgpu.h``), which its rewrite includes, exists only in memory until the
  chain's output is written: inside :func:`overlaying` every parse reads those files from
  memory (libclang's unsaved files), so a later pass parses the rewrite as the build will
  compile it (``verify --passes mgpu,transfers``: "file not found" before).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator

#: (name, bytes, options, ParsedFile) of the last checked parse, inside reusing_checked_parses
_KEPT: list[tuple] = []
_REUSING: list[bool] = []
#: the open recorders (lists of file names), innermost last
_RECORDERS: list[list[str]] = []
#: (path as the includer forms it, bytes) of the files earlier passes of a chain generated
_OVERLAY: list[tuple[tuple[str, bytes], ...]] = []


@contextlib.contextmanager
def reusing_checked_parses() -> Iterator[None]:
    """Within the block a checked parse (:func:`keep_checked`) may serve the next parse of
    the same bytes; after it, nothing is kept."""
    _REUSING.append(True)
    try:
        yield
    finally:
        _REUSING.pop()
        if not _REUSING:
            _KEPT.clear()


def keep_checked(parsed, options) -> None:
    """Keep ``parsed`` (a rewrite's parse without errors, under ``options``) for the next
    load of the same bytes, when inside :func:`reusing_checked_parses`."""
    if _REUSING:
        _KEPT[:] = [(parsed.path, parsed.source, options, parsed)]


def take_kept(name: str, source: bytes, options):
    """The kept parse of ``source`` as ``name`` under ``options`` (given out once), else
    None."""
    if _KEPT:
        kept_name, kept_source, kept_options, parsed = _KEPT[0]
        if kept_name == name and kept_source == source and kept_options == options:
            _KEPT.clear()
            return parsed
    return None


@contextlib.contextmanager
def recording_inputs() -> Iterator[list[str]]:
    """Yield a list that collects the names of the files read by the parses (and fact-cache
    entries) of the block, in order, repeats included."""
    names: list[str] = []
    _RECORDERS.append(names)
    try:
        yield names
    finally:
        _RECORDERS.remove(names)


def recording() -> bool:
    return bool(_RECORDERS)


def record(names: Iterable[str]) -> None:
    """Add ``names`` to every open recorder."""
    names = list(names)
    for recorder in _RECORDERS:
        recorder.extend(names)


@contextlib.contextmanager
def overlaying(files: tuple[tuple[str, bytes], ...]) -> Iterator[None]:
    """Within the block every parse reads ``files`` ((path, bytes): the path as an includer
    forms it, its directory joined with the quoted name) from memory instead of the disk."""
    _OVERLAY.append(tuple(files))
    try:
        yield
    finally:
        _OVERLAY.pop()


def overlay() -> tuple[tuple[str, bytes], ...]:
    """The files of the innermost :func:`overlaying` block (empty outside one)."""
    return _OVERLAY[-1] if _OVERLAY else ()


def with_overlay(unsaved: tuple[tuple[str, bytes], ...]) -> tuple[tuple[str, bytes], ...]:
    """``unsaved`` and the overlay's files it does not name itself (its own text wins: a
    pass's check of the files it generates again)."""
    given = {os.path.abspath(path) for path, _ in unsaved}
    return tuple(unsaved) + tuple((path, text) for path, text in overlay()
                                  if os.path.abspath(path) not in given)
