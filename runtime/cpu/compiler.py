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
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from runtime.cpu.source import KernelSource
from runtime.errors import BackendUnavailable, CompileError

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
STUB_DIR = INCLUDE_DIR / "cuda_stub"
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
    root = os.environ.get("S2S_CPU_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "s2s-runtime")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


@functools.cache
def find_compiler() -> tuple[str, str]:
    """(compiler path, identity string) of the host C++ compiler."""
    candidates = [os.environ["S2S_CXX"]] if os.environ.get("S2S_CXX") else ["g++", "clang++", "clang++-16"]
    for name in candidates:
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        machine = subprocess.run([path, "-dumpmachine"], capture_output=True, text=True).stdout
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
    text = (f'#include "s2s_simt.h"\n#line 1 "{quoted}"\n{source.text}\n'
            f'#line 1 "<s2s generated entry table>"\nS2S_MODULE(\n    {entries}\n)\n')
    return text, exported


def _header_digest(include_dirs: list[Path], names: list[str]) -> str:
    """Hash of the runtime headers plus the quoted includes a source names (found textually)."""
    h = hashlib.sha256()
    for path in sorted(INCLUDE_DIR.rglob("*.h")):
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
    if target.exists():
        return target
    source = cache_dir() / f"s2s_simt_state-{key}.cpp"
    source.write_text('#define S2S_STATE_DEFINITION\n#include "s2s_simt.h"\n')
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=cache_dir())
    os.close(fd)
    command = [compiler, *BASE_FLAGS, f"-I{INCLUDE_DIR}", str(source), "-o", tmp]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise CompileError("building the emulator state library failed", command, proc.stderr)
    os.replace(tmp, target)
    return target


def compile_module(source: KernelSource, instantiate: list[str] | None = None,
                   include_dirs: list[str | Path] | None = None) -> Compiled:
    """Compile (or fetch from the cache) the module for ``source`` with the given template instantiations."""
    instantiate = list(instantiate or [])
    if not source.kernels and not instantiate:
        raise CompileError(f"{source.name}: no kernels to export (no __global__ definitions"
                           + (f"; template kernels {source.template_kernels} need explicit instantiations"
                              if source.template_kernels else "") + ")")
    compiler, identity = find_compiler()
    dirs = [Path(d) for d in (include_dirs or [])]
    flags = list(BASE_FLAGS) + shlex.split(os.environ.get("S2S_CPU_CXXFLAGS", ""))
    text, exported = translation_unit(source, instantiate)
    key = hashlib.sha256("\0".join([ABI_VERSION, identity, " ".join(flags), text,
                                    _header_digest(dirs, source.quoted_includes)]).encode()).hexdigest()[:32]
    out_dir = cache_dir()
    target = out_dir / f"{key}.so"
    if target.exists():
        return Compiled(target, exported, True)
    (out_dir / f"{key}.cpp").write_text(text)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
    os.close(fd)
    state = state_library(compiler, identity)
    command = [compiler, *flags, f"-I{INCLUDE_DIR}", f"-I{STUB_DIR}", *[f"-I{d}" for d in dirs],
               "-x", "c++", str(out_dir / f"{key}.cpp"), "-x", "none", str(state), "-o", tmp]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise CompileError(f"{source.name}: the host compiler rejected the kernel source", command,
                           proc.stderr)
    os.replace(tmp, target)
    return Compiled(target, exported, False)
