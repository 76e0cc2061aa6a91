"""The compiler launcher's cache of whole rewrites, as ccache keeps whole compiles (issue 30).

On a warm fact cache ``s2s nvcc --s2s-passes=transfers,fuse,mgpu -c`` still ran the passes'
analysis (isl in fuse and mgpu) on every compile of an unchanged file. A rewrite is a function
of the file's bytes, the files its parses read, the options, the passes and s2s itself, so
its result (the rewritten bytes, what the passes said, the files they generate beside it) is
kept in the fact cache's folder under a key of everything the fact cache keys
(:func:`s2s.frontend.fact_cache.entry_key`: name, working directory, bytes, effective parse
options, include-path variables, front-end code, libclang) plus:

* the passes, in order, by name and by the function that runs each;
* every file of s2s and of its runtime (size and time: an edited pass, a new release);
* the ``S2S_*`` environment variables (the passes' switches), the cache's own knobs aside;
* the nvcc the fuse pass asks for register counts (its ``--version``).

The entry lists every file the chain's parses included, and those of the fact-cache entries
it used (:func:`s2s.frontend.core.parse_reuse.recording_inputs`), checked as the fact cache
checks its own (project headers by their bytes): a changed header misses. A run whose result
cannot be keyed this way (the cache off, a pass that failed) is not kept. Entries are read
and written by the fact cache's functions: trusted only when the user's own, whole, and built
of s2s's model and diagnostics classes only. Only chains of s2s's own passes are kept (a pass
registered from elsewhere may read what no key holds).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from s2s.diagnostics import Diagnostic
from s2s.frontend import fact_cache
from s2s.frontend.core import parse_reuse
from s2s.frontend.core.parse import ParseOptions, read_source
from s2s.transform.registry import BUILTIN

#: bump when the entry's value changes shape
FORMAT = "s2s-rewrite 1"
#: S2S_ variables that change where results are kept or how many run, never a result
_NOT_IN_KEY = frozenset({"S2S_NO_CACHE", "S2S_CACHE_MAX_MB", "S2S_JOBS"})

_MEMO: dict[str, str] = {}


def cached_chain(path: str, options: ParseOptions, passes: Sequence[tuple[str, object]],
                 chain) -> tuple[bytes, bytes, tuple[Diagnostic, ...],
                                 tuple[tuple[str, bytes], ...]]:
    """``chain()`` (the passes run over ``path``: an object with before, after, diagnostics,
    generated) as (before, after, diagnostics, generated), from the cache when ``path``, what
    it includes, the options, the passes and s2s are as they were."""
    if not (fact_cache.enabled() and options.cache) or not all(
            getattr(run_pass, "__module__", None) in BUILTIN.values() for _, run_pass in passes):
        return _fields(chain())             # (another pass may read what no key holds)
    before = read_source(path)
    key = fact_cache.entry_key(path, options, before, _kind(passes, options))
    found = fact_cache.read_entry(key, tuple)
    if found is not None and len(found) == 3:
        after, diagnostics, generated = found
        return before, after, diagnostics, generated
    with parse_reuse.recording_inputs() as read:
        result = _fields(chain())
    if result[0] == before:
        fact_cache.write_entry_of_files(key, result[1:], read, options)
    return result


def _fields(chained) -> tuple:
    return (chained.before, chained.after, tuple(chained.diagnostics),
            tuple(chained.generated))


def _kind(passes: Sequence[tuple[str, object]], options: ParseOptions) -> str:
    """The part of the key beyond the fact cache's: passes, s2s's files, switches, nvcc."""
    digest = hashlib.sha256(f"{FORMAT}\0nvcc_check={options.nvcc_check}\0".encode())
    for name, run_pass in passes:
        where = f"{getattr(run_pass, '__module__', '')}.{getattr(run_pass, '__qualname__', '')}"
        digest.update(f"{name}={where}\0".encode())
    for name in sorted(os.environ):
        if name.startswith("S2S_") and name not in _NOT_IN_KEY:
            digest.update(f"{name}={os.environ[name]}\0".encode("utf-8", "surrogateescape"))
    digest.update(_tool_files().encode() + b"\0" + _nvcc_identity().encode())
    return "rewrite-" + digest.hexdigest()


def _tool_files() -> str:
    """Size and time of every file of s2s and of its runtime (modules, headers, C sources)."""
    if "tool" not in _MEMO:
        import runtime

        parts = []
        for root in (Path(__file__).resolve().parent.parent, Path(runtime.__file__).parent):
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for name in sorted(filenames):
                    try:
                        info = os.stat(os.path.join(dirpath, name))
                    except OSError:
                        continue
                    parts.append(f"{dirpath}/{name}:{info.st_size}:{info.st_mtime_ns}")
        _MEMO["tool"] = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return _MEMO["tool"]


def _nvcc_identity() -> str:
    """``nvcc --version`` of the nvcc on PATH (the fuse pass's register counts come from it)."""
    if "nvcc" not in _MEMO:
        nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                         if os.path.isfile("/usr/local/cuda/bin/nvcc") else None)
        text = "none"
        if nvcc is not None:
            try:
                text = nvcc + "\n" + subprocess.run([nvcc, "--version"], capture_output=True,
                                                    text=True, timeout=60).stdout
            except (OSError, subprocess.SubprocessError):
                text = nvcc + " (does not run)"
        _MEMO["nvcc"] = text
    return _MEMO["nvcc"]
