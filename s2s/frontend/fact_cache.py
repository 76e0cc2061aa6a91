"""A cache of the facts the front end extracts, per translation unit (issue 30, item 2).

Parsing with libclang and walking its cursors is most of a run; on files that did not change
since the last run the result is the same, so it is kept, as ccache and ruff keep theirs, under
``$XDG_CACHE_HOME/s2s/facts`` (``~/.cache`` by default; the directory chosen and trusted as
every s2s cache is, :mod:`runtime.cache_trust`).

An entry is found by a key of everything the load reads besides the files it includes: the
file's name as given and the working directory (spans carry the name; ``-I.`` means the
working directory), its bytes, the effective parse options (language, CUDA side and path, the
user's flags after the allow-list, GPU architecture), the include-path environment variables,
the s2s version with a fingerprint of the front end's and the model's code (a changed
extractor misses even at one version), and libclang's version. The entry then lists every
file the parse included, ccache's "manifest": project headers with a hash of their bytes,
headers of the toolchain (the CUDA toolkit, ``/usr``, s2s's own shims) with their size and
modification time; an entry whose list no longer matches the disk is a miss, and the file is
loaded and stored again. Files that do not parse (a missing header among them) are not kept.
One change is not seen, as in ccache's direct mode: a header newly created in an include
folder searched before the one that held the header used (it would now shadow it) leaves the
list as it was; ``--no-cache`` then, or any edit of the file.

The same cache keeps the verdict "no error" of the parse that checks a rewrite before it is
emitted (:func:`parse_errors`): a warm run of the compiler launcher parses nothing.

Entries are pickles of the frozen model, read back only when (1) :func:`runtime.cache_trust.usable`
says the file is the user's own and writable by no one else, (2) its SHA-256 matches the
payload (a truncated or half-written file is a miss), (3) it names the key it was asked by,
and (4) the unpickler meets only classes of s2s's model and diagnostics (anything else is
refused before it is built). A bad entry is a miss: it never changes an output. Writes go to
a temporary file renamed into place, so concurrent runs (the compiler launcher runs many)
see a whole entry or none. The directory is kept under a size bound (``S2S_CACHE_MAX_MB``,
default 512), oldest entries removed first; a hit refreshes an entry's time.

``--no-cache`` (``ParseOptions.cache``) or ``S2S_NO_CACHE=1`` turns it off: nothing is read
or written.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from runtime import cache_trust
from s2s.diagnostics import Diagnostic
from s2s.frontend.core import parse_reuse
from s2s.frontend.core.parse import (
    ParseOptions,
    check_parse,
    one_parse_checks,
    read_source,
)
from s2s.frontend.core.toolchain import configure_libclang, default_toolchain
from s2s.model import pickling

if TYPE_CHECKING:
    from s2s.frontend.extract import Loaded

#: bump when the entry layout changes (the key changes with it)
FORMAT = b"s2s-facts 2\n"
DEFAULT_MAX_MB = 512
#: environment variables that change what the parse includes
_INCLUDE_ENV = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LIBCLANG_DISABLE_CRASH_RECOVERY")
#: the modules whose classes an entry may hold (the unpickler refuses every other global)
_ALLOWED_MODULES = ("s2s.model.", "s2s.diagnostics", "s2s.frontend.extract", "s2s.edits")
_ALLOWED_BUILTINS = frozenset({"frozenset", "set", "tuple", "list", "dict"})

def enabled() -> bool:
    """Off with ``S2S_NO_CACHE=1`` (``--no-cache`` makes the driver call ``load`` itself)."""
    return os.environ.get("S2S_NO_CACHE", "").strip().lower() in ("", "0", "no", "off", "false")


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/s2s/facts``, the user's own (or a private one for the run)."""
    return cache_trust.own_directory(cache_trust.user_cache_dir("facts"), "the fact cache folder")


def cached_load(path: str, options: ParseOptions | None = None, source: bytes | None = None,
                skip_without: bytes | None = None, shown: frozenset[str] | None = None
                ) -> Loaded:
    """:func:`s2s.frontend.extract.load`, from the cache when the file, every file it
    includes and the options are as they were; the result is the same either way."""
    from s2s.frontend.extract import Loaded

    options = options or ParseOptions()
    if not (enabled() and options.cache) or parse_reuse.overlay():  # (files only in memory)
        return load(path, options, source, skip_without=skip_without, shown=shown)
    if source is None:
        source = read_source(path)            # InputError as load would raise it
    key = load_key(path, options, source, skip_without, shown)
    found = _read(key, Loaded)
    if found is not None:
        return _with_options(found, options)
    seen: list[str] = []
    loaded = load(path, options, source, read_files=seen, skip_without=skip_without, shown=shown)
    if loaded.model is not None:
        _write(key, replace(loaded, options=None, headers=tuple(
            replace(h, options=None) for h in loaded.headers)), seen, options)
    return loaded


def load(path: str, options: ParseOptions, source: bytes | None = None, **kwargs) -> Loaded:
    """:func:`s2s.frontend.extract.load`, the extractor imported by the first load, not by this
    module: a warm compiler launcher reads its chain's entry here without it (docs/benchmarks.md,
    "Start-up")."""
    from s2s.frontend.extract import load as extract_load

    return extract_load(path, options, source, **kwargs)


def load_key(path: str, options: ParseOptions, source: bytes,
             skip_without: bytes | None = None, shown: frozenset[str] | None = None) -> str:
    """The key of the entry of :func:`cached_load` (``path``, ``source``, ``options``)."""
    # an outline (``skip_without``) or a model of some fields (``shown``) is never served
    # to a run that needs the whole model
    kind = "load" if skip_without is None else "load-without-" + skip_without.hex()
    if shown is not None:
        kind += "-fields " + " ".join(sorted(shown))
    return entry_key(path, options, source, kind)


def parse_errors(data: bytes, path: str, options: ParseOptions,
                 unsaved: tuple[tuple[str, bytes], ...] = ()) -> list[Diagnostic]:
    """libclang's errors on ``data`` parsed as ``path`` (a rewrite checked before it is
    emitted): "none" from the cache when this text, its includes and the options are those
    of a parse that had none (a parse with errors is not kept: a header created since could
    mend it)."""
    # (an OpenMP C or C++ rewrite: its -fopenmp parse alone, no load's parse to keep)
    reusable = not one_parse_checks(data, path, options)
    unsaved = parse_reuse.with_overlay(unsaved)   # (a chain's generated files: never kept)
    if unsaved or not (enabled() and options.cache):   # (files not written yet: never kept)
        parsed = check_parse(data, path, options, unsaved)
        errors = [d for d in parsed.diagnostics if d.is_error]
        if not errors and not unsaved and reusable:
            parse_reuse.keep_checked(parsed, options)
        return errors
    key = entry_key(path, options, data, "check")
    if _read(key, tuple) == ():
        return []
    parsed = check_parse(data, path, options)
    errors = [d for d in parsed.diagnostics if d.is_error]
    if not errors:
        from s2s.frontend.extract import included_files

        _write(key, (), included_files(parsed), options)
        if reusable:
            parse_reuse.keep_checked(parsed, options)   # (the next pass of a chain loads it)
    return errors


def second_opinion(data: bytes, path: str, options: ParseOptions, tool: str,
                   run: Callable[[], list[Diagnostic] | None]) -> list[Diagnostic]:
    """``run()``: the errors another compiler (``tool``: its name and identity) finds in
    ``data``, the rewrite of ``path`` that libclang accepted; "none" from the cache when a
    run on this text with this tool and these options found none and the files libclang's
    parse of it included are as they were (the dependencies of its :func:`parse_errors`
    entry: the other compiler reads the same project headers). A warm run over a program
    whose rewrite of a file is the same as before then runs clang-16 on it no more.
    (``run`` returns None when it could not check: nothing is kept, no error said.)"""
    if not (enabled() and options.cache):
        return run() or []
    key = entry_key(path, options, data, "second-opinion " + tool)
    if _read(key, tuple) == ():
        return []
    errors = run()
    if errors == []:
        found = entry_dependencies(entry_key(path, options, data, "check"))
        if found is not None:
            _store(key, (), *found)
    return errors or []


def entry_key(path: str, options: ParseOptions, source: bytes, kind: str) -> str:
    """The key of ``path``'s entry of ``kind`` ("load": the model; "check": the verdict of a
    parse): everything it reads besides its includes."""
    toolchain = options.toolchain or default_toolchain()
    effective = replace(options, toolchain=toolchain, nvcc_check=False, cache=True)
    digest = hashlib.sha256(FORMAT)
    for part in (kind, path, os.getcwd(), repr(effective), _code_version(), _libclang_version(),
                 *(f"{name}={os.environ.get(name, '')}" for name in _INCLUDE_ENV)):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(hashlib.sha256(source).digest())
    return digest.hexdigest()


def _with_options(loaded: Loaded, options: ParseOptions) -> Loaded:
    """An entry is stored without its options (the caller's own object goes back in)."""
    return replace(loaded, options=options,
                   headers=tuple(replace(h, options=options) for h in loaded.headers))


# -- the versions in the key ----------------------------------------------------------------

_VERSIONS: dict[str, str] = {}


def _code_version() -> str:
    """s2s's version and the size and time of every module of the front end and the model:
    an edited extractor (an editable install) misses, as a new release does."""
    if "code" not in _VERSIONS:
        from s2s import __version__

        root = Path(__file__).resolve().parent.parent
        parts = [__version__]
        for folder in ("frontend", "model"):
            for dirpath, dirnames, filenames in os.walk(root / folder):
                dirnames.sort()
                for name in sorted(filenames):
                    if name.endswith(".py"):
                        info = os.stat(os.path.join(dirpath, name))
                        parts.append(f"{dirpath}/{name}:{info.st_size}:{info.st_mtime_ns}")
        _VERSIONS["code"] = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return _VERSIONS["code"]


def _libclang_version() -> str:
    if "libclang" not in _VERSIONS:
        # (the bindings declare no clang_getClangVersion: the library file stands for it)
        library = configure_libclang().conf.get_filename()
        info = os.stat(library)
        _VERSIONS["libclang"] = f"{library}:{info.st_size}:{info.st_mtime_ns}"
    return _VERSIONS["libclang"]


# -- the files a parse included --------------------------------------------------------------

def _system_roots(options: ParseOptions) -> tuple[str, ...]:
    """Folders of headers nobody edits while they work (checked by size and time, not read):
    the CUDA toolkit, the system's, s2s's own shims and libclang's."""
    toolchain = options.toolchain or default_toolchain()
    cindex = configure_libclang()
    roots = ["/usr/include/", "/usr/lib/", os.path.dirname(cindex.__file__) + os.sep,
             toolchain.shim_dir + os.sep, toolchain.stub_dir + os.sep]
    for folder in (toolchain.cuda_path, toolchain.omp_include):
        if folder:
            roots.append(os.path.realpath(folder) + os.sep)
            roots.append(os.path.abspath(folder) + os.sep)
    return tuple(roots)


def _dependency(name: str, roots: tuple[str, ...]) -> tuple[str, int, int, str] | None:
    """(name, size, mtime, sha256 or "") of an included file; None if it is no regular file."""
    try:
        info = os.stat(name)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    absolute = os.path.abspath(name)
    if absolute.startswith(roots):
        return (name, info.st_size, info.st_mtime_ns, "")
    try:
        with open(name, "rb") as handle:
            return (name, info.st_size, info.st_mtime_ns, hashlib.sha256(handle.read()).hexdigest())
    except OSError:
        return None


def _unchanged(dependency, roots: tuple[str, ...]) -> bool:
    name, size, mtime, digest = dependency
    now = _dependency(name, roots)
    if now is None:
        return False
    return now[1] == size and (now[3] == digest if digest else now[2] == mtime)


# -- entries on disk ------------------------------------------------------------------------

class _ModelUnpickler(pickle.Unpickler):
    """Builds only s2s's model and diagnostics classes (and plain containers)."""

    allowed = _ALLOWED_MODULES

    def find_class(self, module: str, name: str):
        if module == "builtins" and name in _ALLOWED_BUILTINS or \
                any(module == m.rstrip(".") or module.startswith(m) for m in self.allowed):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of the model")


def _read(key: str, kind: type, allowed: tuple[str, ...] = ()):
    """The value stored for ``key`` (a ``kind``) when its entry is whole, trusted and its
    includes unchanged; else None. (``allowed``: modules besides the model's whose classes
    the value may hold.)"""
    stream = _entry_stream(key)
    if stream is None:
        return None
    try:
        stored_key, dependencies, roots = _ModelUnpickler(stream).load()
        if stored_key != key or not all(_unchanged(d, tuple(roots)) for d in dependencies):
            return None
        unpickler = _ModelUnpickler(stream)     # (a pickle of its own: its own memo)
        unpickler.allowed = _ALLOWED_MODULES + allowed
        value = unpickler.load()
    except Exception:  # noqa: BLE001 - any damage is a miss: the file is loaded again
        return None
    if not isinstance(value, kind):
        return None
    parse_reuse.record(d[0] for d in dependencies)     # (what a replayed rewrite read)
    try:
        os.utime(cache_dir() / key)         # recently used: evicted last
    except OSError:
        pass
    return value


def _entry_stream(key: str) -> io.BytesIO | None:
    """The payload of ``key``'s entry when it is trusted and whole (its hash matches)."""
    try:
        entry = cache_dir() / key
        if not cache_trust.usable(entry):
            return None
        data = entry.read_bytes()
    except OSError:
        return None
    head = len(FORMAT)
    payload = data[head + 32:]
    if data[:head] != FORMAT or hashlib.sha256(payload).digest() != data[head:head + 32]:
        return None                         # truncated, corrupt or another version's
    return io.BytesIO(payload)


def entry_dependencies(key: str) -> tuple[list, tuple[str, ...]] | None:
    """(dependencies, system roots) of ``key``'s entry when it is whole, trusted and they are
    unchanged (its value is not read): what a result built from the entry's value depends on
    (:mod:`s2s.run_cache`)."""
    stream = _entry_stream(key)
    if stream is None:
        return None
    try:
        stored_key, dependencies, roots = _ModelUnpickler(stream).load()
    except Exception:  # noqa: BLE001 - a damaged entry: no dependencies known
        return None
    if stored_key != key or not all(_unchanged(d, tuple(roots)) for d in dependencies):
        return None
    return list(dependencies), tuple(roots)


def read_entry(key: str, kind: type, allowed: tuple[str, ...] = ()):
    """:func:`_read` for another module's entries (a replayed run, a replayed rewrite): the
    value for ``key``, built from the model's classes and those of the ``allowed`` modules
    only, or None."""
    return _read(key, kind, allowed)


def write_entry(key: str, value, dependencies: list, roots: tuple[str, ...]) -> None:
    """Store ``value`` under ``key``, valid while ``dependencies`` (as
    :func:`entry_dependencies` gives them) are unchanged."""
    _store(key, value, dependencies, roots)


def _write(key: str, value, seen: list[str], options: ParseOptions) -> None:
    """Store ``value`` (best effort: a cache that cannot be written costs the next run the
    parse, never this run's result)."""
    roots = _system_roots(options)
    dependencies = [_dependency(name, roots) for name in dict.fromkeys(seen)]
    if any(d is None for d in dependencies):
        return                              # an include that is no regular file: not kept
    _store(key, value, dependencies, roots)


def _store(key: str, value, dependencies: list, roots: tuple[str, ...]) -> None:
    # two pickles: (key, dependencies, roots), then the value (read only when they match)
    try:
        payload = pickle.dumps((key, dependencies, roots), protocol=pickle.HIGHEST_PROTOCOL) \
            + pickling.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    try:
        directory = cache_dir()
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        with os.fdopen(fd, "wb") as handle:
            handle.write(FORMAT + hashlib.sha256(payload).digest() + payload)
        cache_trust.publish(tmp, directory / key)
        evict(directory, max_bytes())
    except OSError:
        pass


def write_entry_of_files(key: str, value, seen: list[str], options: ParseOptions) -> None:
    """Keep ``value`` (another cache of s2s: its ``key`` built by :func:`entry_key` with a kind
    of its own) under ``key``, valid while the files named in ``seen`` are as now."""
    _write(key, value, seen, options)


def max_bytes() -> int:
    """The size bound: ``S2S_CACHE_MAX_MB`` (megabytes), else :data:`DEFAULT_MAX_MB`."""
    try:
        megabytes = float(os.environ.get("S2S_CACHE_MAX_MB", DEFAULT_MAX_MB))
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return max(0, int(megabytes * 1024 * 1024))


def evict(directory: Path, limit: int) -> None:
    """Remove the least recently used entries until the folder holds at most ``limit`` bytes
    (temporary files of writers still at work are left alone unless older than an hour)."""
    entries = []
    try:
        with os.scandir(directory) as found:
            for item in found:
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                if item.name.startswith(".tmp-") and info.st_mtime > time.time() - 3600:
                    continue
                entries.append((info.st_mtime_ns, item.name, info.st_size))
    except OSError:
        return
    total = sum(size for _, _, size in entries)
    for _, name, size in sorted(entries):
        if total <= limit:
            break
        try:
            os.unlink(directory / name)
        except FileNotFoundError:
            pass                            # another run evicted it first
        except OSError:
            continue
        total -= size
