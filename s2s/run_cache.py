"""A whole-program run replayed when nothing it reads has changed (issue 30, warm runs).

On a warm fact cache a run of ``s2s omp`` over a program whose files did not change still
spent most of its time in the pass's own analysis (the plan over every function), the check
of the rewrite and the diff, all of which the fact cache does not touch; their result is the
same as the last run's. So the results of :func:`s2s.whole_program.process_program` are kept
in the fact cache's folder (the same trust, size bound and ``--no-cache``), under a key of:

- the pass (its module and name) and a fingerprint of all of s2s's and the runtime's code
  (size and time of every module: an edited analysis misses, not only an edited extractor);
- per file, in order, the fact cache's key of its load (its name, bytes, working directory,
  effective parse options with the user's flags and ``-p``'s, include-path variables,
  libclang), so a file edited, added, removed or reordered misses;
- the environment the pass and its checks read: every ``S2S_`` variable (``S2S_JOBS`` aside:
  ``-j`` gives the same bytes), ``PATH`` and the ``clang-16`` it finds (size and time: the
  check of the rewrite runs it).

The entry lists, as a fact-cache entry does, every file the loads included (project headers
by their bytes, toolchain headers by size and time), taken from the files' own load entries;
one changed is a miss. A run with a file that failed, with stdin's text or with the cache off
keeps nothing. The models are not kept (pickling them cost a cold run more than it saved a
warm one), so only a caller that reads none replays: the rewriting commands' text printers
(``--diff``, ``--check``, ``--in-place``, ``-o``), which show the replayed results as they
would the computed ones, the same bytes (``scripts/bench_speed.py`` and
``testsuite/test_run_cache.py`` check it); JSON, SARIF and ``s2s report`` run the pass.

:func:`cached_diff` keeps the unified diff of a change the same way (keyed by both texts and
the names shown): ``difflib`` on a large file with many repeated lines costs seconds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from s2s.driver import FileResult, Pass, RunOptions, Success, parse_options_for
from s2s.frontend import fact_cache
from s2s.output import FileChange, unified_diff
from s2s.transform import registry

#: bump when what an entry holds changes
FORMAT = b"s2s-run 1\n"
#: modules besides the model's whose classes a kept run holds (results, changes, groups)
ALLOWED = ("s2s.driver", "s2s.output", "s2s.transform.check")
_CODE: list[str] = []


def run_key(paths: list[str], options: RunOptions, run_pass: Pass,
            sources: dict[str, bytes], texts: dict[str, bytes] | None = None) -> str | None:
    """The key of a run of ``run_pass`` over ``paths``, or None when it is not kept (the
    cache off, stdin's text, a file that cannot be read). ``texts``: the files' bytes as a
    run read them (else they are read now)."""
    if sources or not (fact_cache.enabled() and options.parse.cache):
        return None
    digest = hashlib.sha256(FORMAT)
    clang = shutil.which("clang-16")
    parts = [f"{getattr(run_pass, '__module__', '')}.{getattr(run_pass, '__qualname__', '')}",
             repr(registry.needs_word(run_pass)), os.getcwd(), _code_version(),
             f"PATH={os.environ.get('PATH', '')}", f"clang-16={clang}:{_stat(clang)}",
             *(f"{k}={v}" for k, v in sorted(os.environ.items())
               if k.startswith("S2S_") and k != "S2S_JOBS")]
    for path in paths:
        source = texts.get(path) if texts is not None else _read_bytes(path)
        if source is None:
            return None
        parts.append(fact_cache.load_key(path, parse_options_for(options, path), source))
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def replayed(key: str | None, options: RunOptions, models: bool = True
             ) -> list[FileResult] | None:
    """The results kept under ``key`` (each loaded file's parse options set back), or None.
    Only for a caller that reads no model (``models=False``: each ``loaded.model`` is None):
    the models are not kept, as pickling them cost a cold run more than a warm fact cache
    costs a run that wants them."""
    if key is None or models:
        return None
    stored = fact_cache.read_entry(key, tuple, ALLOWED)
    if stored is None or len(stored) != 2:
        return None
    results, owners = stored
    return [replace(result, loaded=_with_options(result.loaded, parse_options_for(options, owner)))
            for result, owner in zip(results, owners, strict=True)]


def keep(key: str | None, paths: list[str], options: RunOptions, run_pass: Pass,
         results: list[FileResult]) -> None:
    """Keep ``results`` under ``key`` when every file succeeded and its load entry (whose
    dependencies the run's entry takes) is in the cache; best effort, as every entry. The
    models are left out (see :func:`replayed`)."""
    if key is None or not all(isinstance(r, Success) for r in results):
        return
    # the bytes the run read: a file edited while it ran is kept under neither text
    texts = {r.path: r.loaded.source for r in results}
    if run_key(paths, options, run_pass, {}, texts) != key:
        return
    unique = list(dict.fromkeys(paths))
    dependencies: dict[str, tuple] = {}
    roots = None
    for path in unique:
        found = _load_dependencies(path, texts[path], options, run_pass)
        if found is None or (roots is not None and found[1] != roots):
            return
        roots = found[1]
        dependencies.update((d[0], d) for d in found[0])
    owners = []
    for result in results:
        owner = next((p for p in unique if parse_options_for(options, p) == result.loaded.options),
                     None)
        if owner is None:
            return
        owners.append(owner)
    stripped = tuple(replace(r, loaded=_without_model(_with_options(r.loaded, None)))
                     for r in results)
    fact_cache.write_entry(key, (stripped, tuple(owners)), list(dependencies.values()),
                           roots or ())


def _without_model(loaded):
    """``loaded`` without its model and its headers' (their texts and diagnostics stay)."""
    return replace(loaded, model=None,
                   headers=tuple(replace(h, model=None) for h in loaded.headers))


def cached_diff(change: FileChange, compute: Callable[[FileChange], str] = unified_diff) -> str:
    """``compute(change)`` (the unified diff), kept in the cache by both texts, the path and
    where it is shown from (the names in its header)."""
    if not fact_cache.enabled() or not change.changed:
        return compute(change)
    digest = hashlib.sha256(FORMAT + b"diff\0")
    for part in (change.path, os.path.abspath(change.path), os.getcwd(), repr(change.created),
                 getattr(compute, "__qualname__", "")):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(hashlib.sha256(change.before).digest() + hashlib.sha256(change.after).digest())
    key = digest.hexdigest()
    found = fact_cache.read_entry(key, str, ())
    if found is not None:
        return found
    text = compute(change)
    fact_cache.write_entry(key, text, [], ())
    return text


def _read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _load_dependencies(path: str, source: bytes, options: RunOptions, run_pass: Pass):
    """(dependencies, roots) of ``path``'s load entry (the whole model's or the outline's)."""
    parse = parse_options_for(options, path)
    for skip in (None, registry.needs_word(run_pass)):
        found = fact_cache.entry_dependencies(fact_cache.load_key(path, parse, source, skip))
        if found is not None:
            return found
    return None


def _with_options(loaded, options):
    """``loaded`` and its headers with ``options`` (kept without: they hold the toolchain)."""
    return replace(loaded, options=options,
                   headers=tuple(replace(h, options=options) for h in loaded.headers))


def _stat(path: str | None) -> str:
    try:
        info = os.stat(path) if path else None
    except OSError:
        return ""
    return f"{info.st_size}:{info.st_mtime_ns}" if info else ""


def _code_version() -> str:
    """s2s's version and the size and time of every module of s2s and the runtime."""
    if not _CODE:
        from s2s import __version__

        root = Path(__file__).resolve().parent
        parts = [__version__]
        for folder in (root, root.parent / "runtime"):
            for dirpath, dirnames, filenames in os.walk(folder):
                dirnames.sort()
                for name in sorted(filenames):
                    if name.endswith((".py", ".h", ".c", ".so")):
                        info = os.stat(os.path.join(dirpath, name))
                        parts.append(f"{dirpath}/{name}:{info.st_size}:{info.st_mtime_ns}")
        _CODE.append(hashlib.sha256("\n".join(parts).encode()).hexdigest())
    return _CODE[0]
