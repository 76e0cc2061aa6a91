"""Results replayed when nothing they were computed from has changed (issue 30, warm runs).

One module for the two replays, on the fact cache's folder (the same trust, size bound and
``--no-cache``; entries read and written by its functions) and with one fingerprint of s2s
(:func:`tool_version`: every file of s2s and its runtime, by size and time - an edited
analysis misses, not only an edited extractor) and of its switches (:func:`switches`: every
``S2S_`` variable but the cache's knobs and ``S2S_JOBS``, which change where results are
kept or how many run, never a result):

**A whole-program run** (:func:`run_key`, :func:`replayed`, :func:`keep`). On a warm fact
cache a run of ``s2s omp`` over a program whose files did not change still spent most of its
time in the pass's own analysis (the plan over every function), the check of the rewrite and
the diff, all of which the fact cache does not touch. So the results of
:func:`s2s.whole_program.process_program` are kept under a key of:

- the pass (its module and name), the fingerprint and the switches;
- per file, in order, the fact cache's key of its load (its name, bytes, working directory,
  effective parse options with the user's flags and ``-p``'s, include-path variables,
  libclang), so a file edited, added, removed or reordered misses;
- ``PATH`` and the ``clang-16`` it finds (size and time: the check of the rewrite runs it).

The entry lists, as a fact-cache entry does, every file the loads included (project headers
by their bytes, toolchain headers by size and time), taken from the files' own load entries;
one changed is a miss. A run with a file that failed, with stdin's text or with the cache off
keeps nothing. The models are not kept (pickling them cost a cold run more than it saved a
warm one), so only a caller that reads none replays: the rewriting commands' text printers
(``--diff``, ``--check``, ``--in-place``, ``-o``), which show the replayed results as they
would the computed ones, the same bytes (``scripts/bench_speed.py`` and
``testsuite/test_run_cache.py`` check it); JSON, SARIF and ``s2s report`` run the pass.

**A compiler launcher's chain of passes** (:func:`cached_chain`), as ccache keeps whole
compiles: ``s2s nvcc --s2s-passes=transfers,fuse,mgpu -c`` on an unchanged file would run
the passes' analysis (isl in fuse and mgpu) on every compile. Its result (the rewritten
bytes, what the passes said, the files they generate beside it) is kept under the fact
cache's key of the file (:func:`s2s.frontend.fact_cache.entry_key`) plus the passes in order
(name and the function that runs each), the fingerprint, the switches and the nvcc the fuse
pass asks for register counts (its ``--version``). The entry lists every file the chain's
parses included, and those of the fact-cache entries it used
(:func:`s2s.frontend.core.parse_reuse.recording_inputs`). Only chains of s2s's own passes
are kept (a pass registered from elsewhere may read what no key holds), and only a chain
whose input did not change while it ran.

:func:`cached_diff` keeps the unified diff of a change the same way (keyed by both texts and
the names shown): ``difflib`` on a large file with many repeated lines costs seconds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from s2s.diagnostics import Diagnostic
from s2s.frontend import fact_cache
from s2s.frontend.core import parse_reuse
from s2s.frontend.core.parse import ParseOptions, read_source
from s2s.output import FileChange, unified_diff
from s2s.transform import registry

if TYPE_CHECKING:      # (the driver, and the extractor it imports, only where a run is replayed
    # or kept: a compiler launcher's warm chain reads its entry without them)
    from s2s.driver import FileResult, Pass, RunOptions

#: bump when what an entry holds changes (a whole-program run's; a chain's)
FORMAT = b"s2s-run 1\n"
CHAIN_FORMAT = "s2s-rewrite 1"
#: modules besides the model's whose classes a kept run holds (results, changes, groups)
ALLOWED = ("s2s.driver", "s2s.output", "s2s.transform.check")
#: S2S_ variables that change where results are kept or how many run, never a result
NOT_IN_KEY = frozenset({"S2S_NO_CACHE", "S2S_CACHE_MAX_MB", "S2S_JOBS"})
#: what one process computes once: the fingerprint of s2s, nvcc's identity
_MEMO: dict[str, str] = {}


def run_key(paths: list[str], options: RunOptions, run_pass: Pass,
            sources: dict[str, bytes], texts: dict[str, bytes] | None = None) -> str | None:
    """The key of a run of ``run_pass`` over ``paths``, or None when it is not kept (the
    cache off, stdin's text, a file that cannot be read). ``texts``: the files' bytes as a
    run read them (else they are read now)."""
    if sources or not (fact_cache.enabled() and options.parse.cache):
        return None
    from s2s.driver import parse_options_for

    digest = hashlib.sha256(FORMAT)
    clang = shutil.which("clang-16")
    parts = [pass_name(run_pass), repr(registry.needs_word(run_pass)), os.getcwd(),
             tool_version(), f"PATH={os.environ.get('PATH', '')}",
             f"clang-16={clang}:{_stat(clang)}", *switches()]
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
    from s2s.driver import parse_options_for

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
    from s2s.driver import Success, parse_options_for

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
    from s2s.driver import parse_options_for

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


def pass_name(run_pass) -> str:
    """A pass in a key: the module and name of the function that runs it."""
    return f"{getattr(run_pass, '__module__', '')}.{getattr(run_pass, '__qualname__', '')}"


def switches() -> list[str]:
    """``NAME=value`` of every ``S2S_`` variable that may change a result (the passes'
    switches), sorted."""
    return [f"{name}={os.environ[name]}" for name in sorted(os.environ)
            if name.startswith("S2S_") and name not in NOT_IN_KEY]


def tool_version() -> str:
    """s2s's version and the size and time of every file of s2s and its runtime (modules,
    headers, C sources, libraries), once per process."""
    if "tool" not in _MEMO:
        import runtime
        from s2s import __version__

        parts = [__version__]
        for root in (Path(__file__).resolve().parent, Path(runtime.__file__).resolve().parent):
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for name in sorted(filenames):
                    try:
                        info = os.stat(os.path.join(dirpath, name))
                    except OSError:
                        continue
                    parts.append(f"{dirpath}/{name}:{info.st_size}:{info.st_mtime_ns}")
        _MEMO["tool"] = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")
                                       ).hexdigest()
    return _MEMO["tool"]


def cached_chain(path: str, options: ParseOptions, passes: Sequence[tuple[str, object]],
                 chain) -> tuple[bytes, bytes, tuple[Diagnostic, ...],
                                 tuple[tuple[str, bytes], ...]]:
    """``chain()`` (the passes run over ``path``: an object with before, after, diagnostics,
    generated) as (before, after, diagnostics, generated), from the cache when ``path``, what
    it includes, the options, the passes and s2s are as they were."""
    if not (fact_cache.enabled() and options.cache) or not all(
            getattr(run_pass, "__module__", None) in registry.BUILTIN.values()
            for _, run_pass in passes):
        return _fields(chain())             # (another pass may read what no key holds)
    before = read_source(path)
    key = fact_cache.entry_key(path, options, before, chain_kind(passes, options))
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


def chain_kind(passes: Sequence[tuple[str, object]], options: ParseOptions) -> str:
    """The part of a chain's key beyond the fact cache's: passes, s2s, switches, nvcc."""
    digest = hashlib.sha256(f"{CHAIN_FORMAT}\0nvcc_check={options.nvcc_check}\0".encode())
    for name, run_pass in passes:
        digest.update(f"{name}={pass_name(run_pass)}\0".encode())
    for switch in switches():
        digest.update(switch.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(tool_version().encode() + b"\0" + nvcc_identity().encode())
    return "rewrite-" + digest.hexdigest()


def nvcc_identity() -> str:
    """``nvcc --version`` of the nvcc on PATH (the fuse pass's register counts come from it),
    asked once per nvcc (:func:`_kept_identity`), not once per process: a warm compiler
    launcher otherwise started nvcc for every compile only to read its version."""
    if "nvcc" not in _MEMO:
        nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                         if os.path.isfile("/usr/local/cuda/bin/nvcc") else None)
        text = "none"
        if nvcc is not None:
            text = _kept_identity(nvcc) or _asked_identity(nvcc)
        _MEMO["nvcc"] = text
    return _MEMO["nvcc"]


def _asked_identity(nvcc: str) -> str:
    try:
        return nvcc + "\n" + subprocess.run([nvcc, "--version"], capture_output=True,
                                            text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return nvcc + " (does not run)"


def _kept_identity(nvcc: str) -> str | None:
    """:func:`_asked_identity` from the fact cache's folder, kept while the files that make
    up this nvcc (:func:`nvcc_files`) are as they were; asked and kept otherwise. None when
    the cache is off or the files are unknown (every run asks)."""
    files = nvcc_files(nvcc)
    if not files or not fact_cache.enabled():
        return None
    key = hashlib.sha256("\0".join(("s2s nvcc identity 1", nvcc, *files)).encode(
        "utf-8", "surrogateescape")).hexdigest()
    found = fact_cache.read_entry(key, str)
    if found is not None:
        return found
    text = _asked_identity(nvcc)
    if not text.endswith(" (does not run)"):
        fact_cache.write_entry_of_files(key, text, list(files), ParseOptions())
    return text


def nvcc_files(nvcc: str) -> tuple[str, ...]:
    """The files whose change may change what ``nvcc --version`` says: the program itself
    and, when it is a small shell script that starts another program (``exec
    /usr/local/cuda-13.0/bin/nvcc "$@"``, as on these machines), the absolute paths of the
    existing files its words name. Empty (never kept) when the script reads any variable but
    its arguments (``$CUDA_HOME/bin/nvcc``: the program run may change without a file
    changing)."""
    real = os.path.realpath(nvcc)
    try:
        with open(real, "rb") as handle:
            head = handle.read(4097)
    except OSError:
        return ()
    if not head.startswith(b"#!"):
        return (real,)
    text = head.decode("utf-8", "replace")
    if len(head) > 4096 or "`" in text or "$" in text.replace('"$@"', ""):
        return ()
    named = []
    for line in text.splitlines()[1:]:
        for word in line.split():
            word = word.strip("\"'")
            if word.startswith("/") and os.path.isfile(word):
                named.append(os.path.realpath(word))
    return (real, *dict.fromkeys(named))
