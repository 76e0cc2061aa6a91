"""The rewriting passes that exist, by subcommand name.

Each later issue registers its pass here (a function ``Loaded -> PassOutput``, see
:mod:`s2s.driver`); the CLI frame (``--diff``, ``--in-place``, ``--check``, ``-o``) is shared
and already tested with a pass that tests register themselves.

The built-in passes are imported on first use (issue 30, item 4): ``s2s omp`` on one file
need not import isl for fuse and mgpu, nor ``s2s --help`` any pass. :func:`get` imports the
one pass it is asked for; whoever reads :data:`PASSES` as a table (lists it, replaces an
entry) gets every built-in pass in it first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from s2s.driver import Pass

#: the module of each built-in pass; importing it registers the pass
BUILTIN = {"omp": "s2s.transform.omp", "fuse": "s2s.transform.fuse",
           "transfers": "s2s.transform.transfers", "mgpu": "s2s.transform.mgpu"}


class _Passes(dict):
    """The registered passes: a dict that imports the built-in passes before it is read or
    changed as a whole (a test's ``monkeypatch.setitem(PASSES, "fuse", stand_in)`` replaces
    the real pass, and the real one's later import keeps the stand-in: :func:`register`)."""

    def _full(self) -> None:
        for name in BUILTIN:
            _import(name)

    def __getitem__(self, name):
        self._full()
        return dict.__getitem__(self, name)

    def __contains__(self, name) -> bool:
        self._full()
        return dict.__contains__(self, name)

    def __iter__(self):
        self._full()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._full()
        return dict.__len__(self)

    def keys(self):
        self._full()
        return dict.keys(self)

    def values(self):
        self._full()
        return dict.values(self)

    def items(self):
        self._full()
        return dict.items(self)

    def get(self, name, default=None):
        self._full()
        return dict.get(self, name, default)


PASSES: dict[str, Pass] = _Passes()
#: The order passes run in when several are selected (the wrapper, verify's default). fuse
#: comes before transfers: transfers turns allocations into slices of one pool, which hides
#: from fuse that two buffers are distinct (gemver: 2 launches after fuse alone, 3 after
#: transfers then fuse), while transfers reaches as few copies on fused code as on the original
#: (issue 31; scripts/compare_pass_orders.py prints both orders over the samples and corpus).
PIPELINE_ORDER = ("omp", "fuse", "transfers", "mgpu")
#: passes that take several files as one program (s2s.driver.process_program)
WHOLE_PROGRAM: set[Pass] = set()
#: pass -> a word without which it has nothing to do in a program (s2s.frontend.extract.load)
NEEDS_WORD: dict[Pass, bytes] = {}


def register(name: str, run_pass: Pass, whole_program: bool = False,
             needs_word: bytes | None = None) -> None:
    """Register ``run_pass`` as ``name``. ``needs_word``: a program none of whose files and
    project headers contain it gets nothing from the pass (whose output on the files'
    outlines is then its whole output). A built-in pass imported after an entry of its name
    was put in the table (a test's stand-in) keeps that entry."""
    if whole_program:
        WHOLE_PROGRAM.add(run_pass)
    if needs_word is not None:
        NEEDS_WORD[run_pass] = needs_word
    if BUILTIN.get(name) == getattr(run_pass, "__module__", None) and dict.__contains__(PASSES, name):
        return
    dict.__setitem__(PASSES, name, run_pass)


def is_whole_program(run_pass: Pass) -> bool:
    return run_pass in WHOLE_PROGRAM


def needs_word(run_pass: Pass | None) -> bytes | None:
    return NEEDS_WORD.get(run_pass) if run_pass is not None else None


def get(name: str) -> Pass | None:
    """The pass registered as ``name`` (a built-in one imported now if it was not yet)."""
    if not dict.__contains__(PASSES, name) and name in BUILTIN:
        _import(name)
    return dict.get(PASSES, name)


def deferred(name: str) -> Pass | None:
    """As :func:`get`, but a built-in pass not imported yet comes as a :class:`Deferred`
    that imports it when it first runs: the compiler launcher replays a cached rewrite
    (:func:`s2s.run_cache.cached_chain`) without importing the passes (isl among them)."""
    if not dict.__contains__(PASSES, name) and name in BUILTIN and name not in _imported:
        return Deferred(name)
    return get(name)


class Deferred:
    """A built-in pass by name, imported on its first call (:func:`resolved` gives the
    pass itself, for whoever compares passes by identity)."""

    def __init__(self, name: str):
        self.name = name
        self.__module__ = BUILTIN[name]
        self.__qualname__ = f"<built-in pass {name}>"

    def __call__(self, loaded):
        return resolved(self)(loaded)

    def __repr__(self) -> str:
        return f"Deferred({self.name!r})"


def resolved(run_pass: Pass | Deferred | None) -> Pass | None:
    """The pass a :class:`Deferred` stands for (imported now); any other pass as it is."""
    return get(run_pass.name) if isinstance(run_pass, Deferred) else run_pass


_imported: set[str] = set()


def _import(name: str) -> None:
    """Import the built-in pass ``name`` once (a test that removed it keeps it removed)."""
    if name not in _imported:
        _imported.add(name)
        importlib.import_module(BUILTIN[name])
