"""Per-kernel registers and static shared memory from ``nvcc --resource-usage``.

A fused kernel holds the stages of several kernels: its static shared memory is the sum of
theirs (each stage keeps its own ``__shared__`` arrays) and its register demand at least the
largest stage's plus one register per value passed on chip. Measuring the original kernels
with ptxas is the only reliable source of these numbers (they depend on the compiler), so the
file is compiled once, ``-c`` only, and the result cached on disk by source text, flags and
nvcc version. Without nvcc (or with ``S2S_FUSE_NVCC=0``) the check is skipped and
``--explain`` says so.
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
from dataclasses import dataclass
from pathlib import Path

from runtime import cache_trust
from runtime.cpu.compiler import cache_dir as runtime_cache_dir
from s2s import shell_safe

#: Static shared memory a block may use without opting in, and register limits (sm_90).
SMEM_LIMIT = 48 * 1024
REGS_PER_THREAD = 255
REGS_PER_BLOCK = 65536

_FUNCTION = re.compile(r"Compiling entry function '(\w+)'|Function properties for (\w+)")
_USAGE = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_MANGLED_LENGTH = re.compile(r"_Z(\d+)")


@dataclass(frozen=True)
class Usage:
    registers: int
    smem: int


def nvcc_path() -> str | None:
    if os.environ.get("S2S_FUSE_NVCC", "1") == "0":
        return None
    found = shutil.which("nvcc")
    if found is None and os.path.isfile("/usr/local/cuda/bin/nvcc"):
        found = "/usr/local/cuda/bin/nvcc"
    return found


@functools.cache
def _nvcc_version(nvcc: str) -> str:
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout


def resource_usage(source: bytes, path: str, kernels: tuple[str, ...], arch: str = "sm_90"
                   ) -> dict[str, Usage] | None:
    """Usage of each of ``kernels`` (by plain name; a template's largest over its
    instantiations); None when nvcc is unavailable or fails."""
    nvcc = nvcc_path()
    if nvcc is None:
        return None
    key = hashlib.sha256(source + arch.encode() + _nvcc_version(nvcc).encode()).hexdigest()
    cache = runtime_cache_dir()        # the user's own, or a private one (cache_trust)
    cached = cache / "fuse-resources" / f"{key}.json"
    data = _read_cached(cached)
    if data is None:
        data = _measure(nvcc, source, path, arch)
        if data is None:
            return None
        cached.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        cache_trust.publish(tmp, cached)
    out = {}
    wanted = {name: i for i, name in reversed(list(enumerate(kernels)))}  # first position
    for mangled, (regs, smem) in data.items():
        # ``_Z<len><name>...`` names the plain name ``name`` (a lookup per entry, not a test
        # of every kernel against every entry)
        found = {mangled} if mangled in wanted else set()
        digits = _MANGLED_LENGTH.match(mangled)
        if digits is not None:
            found.add(mangled[digits.end():digits.end() + int(digits.group(1))])
        for name in sorted((n for n in found if n in wanted), key=wanted.get):
            if mangled == name or mangled.startswith(f"_Z{len(name)}{name}"):
                # the instantiations of a template kernel share its plain name: the largest
                # of each measure stands for all of them
                seen = out.get(name, Usage(0, 0))
                out[name] = Usage(max(regs, seen.registers), max(smem, seen.smem))
    return out


def _read_cached(entry: Path) -> dict | None:
    """A stored measurement this user owns and no one else may write, else None (measure)."""
    if not cache_trust.usable(entry):
        return None
    try:
        data = json.loads(entry.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _measure(nvcc: str, source: bytes, path: str, arch: str) -> dict | None:
    """nvcc's register and shared-memory report for ``source``. nvcc runs its tools through
    a shell, so every path given to it is shell-safe (s2s.shell_safe): the copy has a plain
    name, the source directory a safe stand-in, and nvcc's own temp files stay in ``tmp``."""
    directory = os.path.dirname(os.path.abspath(path))
    root = shell_safe.temp_root()
    if root is None or not shell_safe.safe_characters(arch):
        return None
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        include = shell_safe.alias(directory, tmp, "src")
        suffix = os.path.splitext(path)[1]
        copy = os.path.join(tmp, "kernels" + (suffix if shell_safe.safe_characters(suffix)
                                              and suffix else ".cu"))
        with open(copy, "wb") as handle:
            handle.write(source)
        proc = subprocess.run([nvcc, "-c", f"-arch={arch}", "--resource-usage", f"-I{include}",
                               copy, "-o", os.path.join(tmp, "out.o")],
                              capture_output=True, text=True, errors="replace",
                              env=dict(os.environ, TMPDIR=tmp))
    if proc.returncode != 0:
        return None
    usage, current = {}, None
    for line in (proc.stdout + proc.stderr).splitlines():
        found = _FUNCTION.search(line)
        if found:
            current = found.group(1) or found.group(2)
            continue
        used = _USAGE.search(line)
        if used and current is not None:
            smem = _SMEM.search(line)
            usage[current] = (int(used.group(1)), int(smem.group(1)) if smem else 0)
    return usage
