"""Check a rewritten CUDA file with ``nvcc -c`` before it is emitted (issue 18, item 7).

libclang parses CUDA on one side only (the host side by default), so a rewrite can parse and
still not build: a ``__global__`` function calling a host-only function, for instance, is an
error of the device compilation that the host-side parse never makes. Where nvcc exists the
rewritten text is compiled with ``nvcc -c`` in a temporary directory: the runtime's include
directory added by s2s itself, the original file's directory for its quoted includes, and the
user's ``-I``/``-D``/``-U``/``-isystem``/``-include``/``-std``. Where nvcc is absent the
caller keeps the libclang parse alone.

nvcc runs its tools through ``sh -c`` (:mod:`s2s.shell_safe`): no user string reaches its
command line as it is. ``-D``/``-U`` become ``#define``/``#undef`` lines in front of the text
(then ``#line 1`` so nvcc's line numbers are the rewritten file's), directories whose path a
shell would change are replaced by symbolic links with safe names, and the command is an argv
list (no shell of ours).

A compile takes about 2.5 s, so results are cached by a hash of (text, flags, include
directories, nvcc version) under ``$XDG_CACHE_HOME/s2s/nvcc-check`` (``~/.cache`` by default).
The check is turned off with ``--no-nvcc-check``, ``nvcc-check = false`` in ``.s2s.toml``, or
``S2S_NVCC_CHECK=0``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from runtime import cache_trust
from s2s import shell_safe
from s2s.diagnostics import Diagnostic, Location
from s2s.edits import beside_name
from s2s.frontend.core.allowed_flags import allowed_flags
from s2s.model.cuda_legacy import legacy_defines
from s2s.runtime_files import RUNTIME_INCLUDE

#: nvcc's own message format: ``file(12): error: text``
_ERROR = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): (?:catastrophic )?error: (?P<text>.*)$")
_ARCH = re.compile(r"sm_\d+[a-z]?\Z")
#: seconds one check may take before it counts as "nvcc unusable" (not as a failed rewrite)
TIMEOUT_S = 300


def enabled_by_environment() -> bool:
    """``S2S_NVCC_CHECK=0`` (or ``no``, ``off``, ``false``) turns the check off."""
    return os.environ.get("S2S_NVCC_CHECK", "1").strip().lower() not in ("0", "no", "off", "false")


def find_nvcc(cuda_path: str | None = None) -> str | None:
    """The real nvcc: the toolkit's ``bin/nvcc``, else the first on ``PATH``; None if none."""
    candidates = [os.path.join(cuda_path, "bin", "nvcc")] if cuda_path else []
    on_path = shutil.which("nvcc")
    if on_path:
        candidates.append(on_path)
    return next((c for c in candidates if os.path.isfile(c) and os.access(c, os.X_OK)), None)


@functools.cache
def nvcc_version(nvcc: str) -> str | None:
    """``nvcc --version``'s text (part of the cache key); None when nvcc does not run."""
    try:
        proc = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/s2s/nvcc-check`` (:func:`runtime.cache_trust.user_cache_dir`)."""
    return cache_trust.user_cache_dir("nvcc-check")


def check_flags(user_flags: Sequence[str]) -> tuple[str, ...]:
    """The user's flags that change what nvcc compiles, one item each (``-DX``, ``-Idir``,
    ``-isystemdir``, ``-includefile``, ``-std=c++17``); other flags are for the parser only."""
    out, items, at = [], list(allowed_flags(user_flags)[0]), 0
    while at < len(items):
        item = items[at]
        option = next((o for o in ("-isystem", "-include", "-D", "-U", "-I") if item.startswith(o)),
                      None)
        if option is not None:
            value = item[len(option):]
            if not value and at + 1 < len(items):
                at += 1
                value = items[at]
            if value:
                out.append(option + _flag_path(option, value))
        elif item.startswith("-std="):
            out.append(item)
        at += 1
    return tuple(out)


def _flag_path(option: str, value: str) -> str:
    """The value of a user's flag as the check's compile (in another directory) needs it:
    directories absolute; an ``-include`` file absolute where it exists from here, as nvcc
    looks for it first in the working directory, else as written (``-include math.h`` is
    found on the include path, not next to the source)."""
    if option in ("-I", "-isystem"):
        return os.path.abspath(value)
    if option == "-include":
        return os.path.abspath(value) if os.path.isfile(value) else value
    return value


def nvcc_errors(data: bytes, path: str, user_flags: Sequence[str], gpu_arch: str,
                nvcc: str, generated: Sequence[tuple[str, bytes]] = ()
                ) -> list[Diagnostic] | None:
    """nvcc's errors for ``data`` as the rewrite of ``path`` (empty: it compiles); None when
    nvcc could not be run at all (the caller falls back to the parse check). ``generated``:
    (path, bytes) of the files the pass generates beside ``path`` (mgpu's kernel table),
    written beside the compiled copy, where its quoted includes find them first."""
    version = nvcc_version(nvcc)
    if version is None:
        return None
    flags = check_flags(user_flags)
    directories = (RUNTIME_INCLUDE, os.path.dirname(os.path.abspath(path)))
    arch = gpu_arch if _ARCH.match(gpu_arch) else "sm_90"
    beside = tuple((beside_name(p, path), text) for p, text in generated)
    key = hashlib.sha256(b"\0".join([data, *(s.encode() for s in (
        *flags, _define_lines(flags), *directories, arch, version)),
        *(part for name, text in beside for part in (os.fsencode(name), text))])).hexdigest()
    cached = _read_cache(key)
    if cached is not None:
        return [_diagnostic(path, line, text) for line, text in cached]
    found = _compile(data, flags, directories, arch, nvcc, beside)
    if found is None:
        return None
    _write_cache(key, found)
    return [_diagnostic(path, line, text) for line, text in found]


def _compile(data: bytes, flags: tuple[str, ...], directories: tuple[str, ...], arch: str,
             nvcc: str, beside: tuple[tuple[str, bytes], ...] = ()
             ) -> list[tuple[int, str]] | None:
    root = shell_safe.temp_root()
    if root is None:
        return None
    with tempfile.TemporaryDirectory(prefix="s2s-nvcc-check-", dir=root) as work:
        scratch = os.path.join(work, "tmp")
        os.mkdir(scratch)
        source = os.path.join(work, "rewrite.cu")
        Path(source).write_bytes(_define_lines(flags).encode() + b'#line 1 "rewrite.cu"\n' + data)
        for name, text in beside:     # (edits.beside_name: beside the source or below it)
            Path(work, name).parent.mkdir(parents=True, exist_ok=True)
            Path(work, name).write_bytes(text)
        command = [nvcc, "-c", "-x", "cu", f"-arch={arch}", *_path_flags(flags, directories, work),
                   source, "-o", os.path.join(work, "rewrite.o")]
        try:
            # nvcc quotes the rewrite's lines, whose bytes need not be UTF-8 (fuzz seed 78224959)
            proc = subprocess.run(command, capture_output=True, text=True, errors="replace",
                                  timeout=TIMEOUT_S, env=dict(os.environ, TMPDIR=scratch), cwd=work)
        except (OSError, subprocess.SubprocessError):
            return None
    if proc.returncode == 0:
        return []
    errors = [(int(m["line"]), m["text"].strip()) for m in map(_ERROR.match,
              (proc.stdout + proc.stderr).splitlines()) if m]
    return errors or [(0, _last_line(proc.stderr or proc.stdout, proc.returncode))]


def _path_flags(flags: tuple[str, ...], directories: tuple[str, ...], work: str) -> list[str]:
    """``-I``/``-isystem``/``-include`` and ``-std`` with every path shell-safe (a symbolic
    link in ``work`` stands for one that is not); s2s's own directories come last."""
    out = []
    for n, flag in enumerate(flags):
        option = next((o for o in ("-isystem", "-include", "-I") if flag.startswith(o)), None)
        if option is not None:
            target = flag[len(option):]
            if option == "-include":
                link = target if shell_safe.is_safe(target) else os.path.join(work, f"pre{n}.h")
                if link != target:
                    os.symlink(target, link)
                out += [option, link]
            else:
                out += [option, shell_safe.alias(target, work, f"inc{n}")]
        elif flag.startswith("-std=") and shell_safe.safe_characters(flag):
            out.append(flag)
    for n, directory in enumerate(directories):
        out += ["-I", shell_safe.alias(directory, work, f"s2s{n}")]
    return out


def _define_lines(flags: tuple[str, ...]) -> str:
    """``-D``/``-U`` as lines of the text: macro values never reach nvcc's shell; then the
    calls CUDA 13 removed mapped to their replacements (:mod:`s2s.model.cuda_legacy`), as
    every pass and verify's shim see them, unless the user's own flags name them."""
    lines, named = [], []
    for flag in flags:
        if flag.startswith("-U"):
            lines.append(f"#undef {flag[2:]}\n")
            named.append(flag[2:])
        elif flag.startswith("-D"):
            name, eq, body = flag[2:].partition("=")
            lines.append(f"#define {name} {body if eq else '1'}\n")
            named.append(name)
    return "".join(lines) + legacy_defines(named)


def _last_line(text: str, code: int) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else f"nvcc exited with status {code}"


def _diagnostic(path: str, line: int, text: str) -> Diagnostic:
    where = Location(path, line, 1, 0) if line > 0 else None
    return Diagnostic.error(f"nvcc: {text}", "nvcc-error", where)


def _read_cache(key: str) -> list[tuple[int, str]] | None:
    """The verdict stored for ``key``, or None: none stored, an entry this user does not own
    or others may write (:func:`runtime.cache_trust.usable`), or one whose stored hash of the
    inputs is not ``key`` (a copied or planted file): then nvcc checks again."""
    entry = cache_dir() / f"{key}.json"
    if not cache_trust.usable(entry):
        return None
    try:
        stored = json.loads(entry.read_text())
        if not isinstance(stored, dict) or stored.get("inputs") != key:
            return None
        return [(int(line), str(text)) for line, text in stored["errors"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_cache(key: str, errors: list[tuple[int, str]]) -> None:
    """Best effort: an unwritable cache only costs the next run the compile."""
    try:
        directory = cache_dir()
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".json", dir=directory)
        with os.fdopen(fd, "w") as handle:
            json.dump({"inputs": key, "errors": errors}, handle)
        cache_trust.publish(tmp, directory / f"{key}.json")
    except OSError:
        pass
