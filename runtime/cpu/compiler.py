"""Compile preprocessed kernel source into a shared object, with an on-disk cache.

Why a cache: g++ needs a few seconds per kernel file and a benchmark or test suite loads the same kernels
many times.  The key hashes everything that changes the object: the generated translation unit, the
emulation headers, the contents of the source's quoted includes, the flags and the compiler's identity
(``--version`` and ``-dumpmachine``).  Objects are written to a temporary name and renamed, so concurrent
processes never load a half-written file.

Environment: ``S2S_CXX`` (compiler, default g++ then clang++), ``S2S_CPU_CACHE`` (cache directory, default
``~/.cache/s2s-runtime``), ``S2S_CPU_CXXFLAGS`` (extra flags, part of the key).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from runtime import cache_trust
from runtime.cpu.source import KernelSource, source_bytes
from runtime.errors import BackendUnavailable, CompileError

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
STUB_DIR = INCLUDE_DIR / "cuda_stub"
#: the CUDA flag constants, one home for s2s's headers (s2s_host_api.h includes it)
FLAGS_HEADER = INCLUDE_DIR.parent.parent / "include" / "s2s_cuda_flags.h"
BASE_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-fopenmp", "-ffp-contract=off", "-fno-math-errno",
              "-w")
ABI_VERSION = "3"


@dataclass(frozen=True)
class Compiled:
    """A compiled module on disk and the kernel names it exports, in table order."""
    path: Path
    exported: tuple[str, ...]
    cached: bool


def cache_dir() -> Path:
    """The runtime's cache directory: the user's own and writable by no one else, or a private
    one for this process (:mod:`runtime.cache_trust`)."""
    root = os.environ.get("S2S_CPU_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "s2s-runtime")
    return cache_trust.own_directory(root, "the runtime cache (S2S_CPU_CACHE)")


def tool_output(path: str, *args: str) -> str:
    """Standard output of ``path args`` (a compiler's ``--version``), remembered in the cache per the
    program file it runs (resolved path, inode, size, modification and change times): a compiler's
    identity is part of every compiled kernel's cache key, and asking the compiler costs a process
    start (20-50 ms) at every program start. A replaced or updated compiler is a new file (new
    times), so it is asked again; a failed run is not remembered."""
    real = os.path.realpath(path)
    info = os.stat(real)
    key = hashlib.sha256("\0".join([real, *args, *map(str, (info.st_ino, info.st_size, info.st_mtime_ns,
                                                                info.st_ctime_ns))]).encode()).hexdigest()[:24]
    entry = cache_dir() / f"tool-{key}.txt"
    if cache_trust.usable(entry):
        return entry.read_text()
    proc = subprocess.run([path, *args], capture_output=True, text=True, errors="replace")
    if proc.returncode == 0:
        fd, tmp = tempfile.mkstemp(suffix=".txt", dir=cache_dir())
        with os.fdopen(fd, "w") as handle:
            handle.write(proc.stdout)
        cache_trust.publish(tmp, entry)
    return proc.stdout


@functools.cache
def find_compiler() -> tuple[str, str]:
    """(compiler path, identity string) of the host C++ compiler."""
    candidates = [os.environ["S2S_CXX"]] if os.environ.get("S2S_CXX") else ["g++", "clang++", "clang++-16"]
    for name in candidates:
        path = shutil.which(name)
        if not path:
            continue
        version, machine = tool_output(path, "--version"), tool_output(path, "-dumpmachine")
        return path, version.strip() + "\n" + machine.strip()
    raise BackendUnavailable("cpu backend: no host C++ compiler found (tried " + ", ".join(candidates)
                             + "; set S2S_CXX)")


def translation_unit(source: KernelSource, instantiate: list[str]) -> tuple[str, tuple[str, ...]]:
    """The text handed to the compiler and the exported kernel names."""
    exported = tuple(source.kernels) + tuple(instantiate)
    entries = ",\n    ".join(
        f'{{"{name}", &s2s::launch<&{name}, {fib}>, &s2s::describe<&{name}>, {int(fib == "true")}, (void *)&{name}}}'
        for name in exported for fib in ["true" if source.needs_fibers(name) else "false"])
    quoted = source.name.replace("\\", "\\\\").replace('"', '\\"')
    text = (f'#include "s2s_simt.h"\n#include "s2s_host_api.h"\n#line 1 "{quoted}"\n{source.text}\n'
            f'#line 1 "<s2s generated entry table>"\nS2S_MODULE(\n    {entries}\n)\n')
    return text, exported


def _header_digest(include_dirs: list[Path], names: list[str]) -> str:
    """Hash of the runtime headers plus the quoted includes a source names (found textually)."""
    h = hashlib.sha256()
    for path in [*sorted(INCLUDE_DIR.rglob("*.h")), FLAGS_HEADER]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    seen: set[Path] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        for directory in include_dirs:
            candidate = (directory / name).resolve()
            if candidate.is_file() and candidate not in seen:
                seen.add(candidate)
                data = candidate.read_bytes()
                h.update(str(candidate).encode() + b"\0" + data)
                todo += [line.split('"')[1] for line in data.decode(errors="replace").splitlines()
                         if line.lstrip().startswith("#") and "include" in line and line.count('"') >= 2]
                break
    return h.hexdigest()


def state_library(compiler: str, identity: str) -> Path:
    """The shared library holding the emulator's per-OS-thread state (see s2s_fibers.h), built once."""
    h = hashlib.sha256()
    for path in sorted(INCLUDE_DIR.rglob("*.h")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    key = hashlib.sha256("\0".join([ABI_VERSION, identity, h.hexdigest()]).encode()).hexdigest()[:24]
    target = cache_dir() / f"libs2s_simt_state-{key}.so"
    if cache_trust.usable(target):
        return target
    source = cache_dir() / f"s2s_simt_state-{key}.cpp"
    source.write_text('#define S2S_STATE_DEFINITION\n#include "s2s_simt.h"\n')
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=cache_dir())
    os.close(fd)
    command = [compiler, *BASE_FLAGS, f"-I{INCLUDE_DIR}", str(source), "-o", tmp]
    proc = subprocess.run(command, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        os.unlink(tmp)
        raise CompileError("building the emulator state library failed", command, proc.stderr)
    cache_trust.publish(tmp, target)
    return target


def kernel_flags(flags) -> tuple[str, ...]:
    """The flags of a program's compile command that change what its kernels mean: ``-D``,
    ``-U``, ``-I`` (joined to their value) and ``-std=`` (a standard below C++17 counts as
    C++17, which the emulation headers need); anything else is dropped. Raises ConfigError
    for a flag with a character a shell would act on (none reaches a shell, but the cache key
    and the messages show them)."""
    out, items, at = [], list(flags), 0
    while at < len(items):
        item = items[at]
        option, value = item[:2], item[2:]
        if option in ("-D", "-U", "-I") and not value and at + 1 < len(items):
            at += 1
            value = items[at]
        if option in ("-D", "-U", "-I") and value and "\n" not in value:
            out.append(option + (os.path.abspath(value) if option == "-I" else value))
        elif item.startswith("-std=") and _STD.match(item[5:]):
            out.append(item if _std_year(item[5:]) >= 17 else "-std=c++17")
        at += 1
    return tuple(out)


_STD = re.compile(r"(c|gnu)\+\+(\d\d|[0-9][a-z])$")


def _std_year(std: str) -> int:
    """17 for c++17 / gnu++1z, 20 for c++2a ... (98 and 03 count as before 11)."""
    year = std.split("++")[1]
    known = {"98": 3, "03": 3, "0x": 11, "1y": 14, "1z": 17, "2a": 20, "2b": 23, "2c": 26}
    return known.get(year) or int(year)


def compile_module(source: KernelSource, instantiate: list[str] | None = None,
                   include_dirs: list[str | Path] | None = None, user_flags: tuple[str, ...] = ()) -> Compiled:
    """Compile (or fetch from the cache) the module for ``source`` with the given template instantiations."""
    instantiate = list(instantiate or [])
    if not source.kernels and not instantiate:
        raise CompileError(f"{source.name}: no kernels to export (no __global__ definitions"
                           + (f"; template kernels {source.template_kernels} need explicit instantiations"
                              if source.template_kernels else "") + ")")
    compiler, identity = find_compiler()
    dirs = [Path(d) for d in (include_dirs or [])]
    flags = list(BASE_FLAGS) + list(user_flags) + shlex.split(os.environ.get("S2S_CPU_CXXFLAGS", ""))
    text, exported = translation_unit(source, instantiate)
    dirs += [Path(f[2:]) for f in user_flags if f.startswith("-I")]
    key = hashlib.sha256(source_bytes("\0".join([ABI_VERSION, identity, " ".join(flags), text,
                                    _header_digest(dirs, source.quoted_includes)]))).hexdigest()[:32]
    out_dir = cache_dir()
    target = out_dir / f"{key}.so"
    if cache_trust.usable(target):
        return Compiled(target, exported, True)
    (out_dir / f"{key}.cpp").write_bytes(source_bytes(text))
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
    os.close(fd)
    state = state_library(compiler, identity)
    command = [compiler, *flags, f"-I{INCLUDE_DIR}", f"-I{STUB_DIR}",
               *[f"-I{d}" for d in dirs if f"-I{d}" not in flags],
               "-x", "c++", str(out_dir / f"{key}.cpp"), "-x", "none", str(state), "-o", tmp]
    proc = subprocess.run(command, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        os.unlink(tmp)
        raise CompileError(f"{source.name}: the host compiler rejected the kernel source", command,
                           proc.stderr)
    cache_trust.publish(tmp, target)
    return Compiled(target, exported, False)
