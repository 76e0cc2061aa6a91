"""Build and run OpenMP offload programs on a host "device" and measure their data movement.

Why this exists: ``s2s omp`` rewrites map clauses, and the only way to know a rewrite is right
and cheaper is to run both versions. Without a GPU, clang-16 can offload target regions to the
host (``-fopenmp-targets=x86_64-pc-linux-gnu``); libomptarget then keeps a separate "device"
copy of every mapped object and, under ``LIBOMPTARGET_INFO``, logs every copy and every kernel
argument. From one run we get the stdout, the copies (count and bytes per direction) and the
pointers that a kernel used with no device mapping. The latter matters because the host plugin
shares the host address space: such a program prints the right answer here and is wrong on a
discrete GPU, so a checker must treat it as an error rather than trust the output.

Standard library only, so that scripts and tests can use it without the rest of s2s.
"""

from __future__ import annotations

import functools
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from s2s.frontend.core.allowed_flags import allowed_flags
from s2s.verify.bounded_run import kill_group, run_process  # noqa: F401  (re-exported)

__all__ = [
    "BuildError", "CopyStats", "RunResult", "toolchain_problem", "build", "run", "compare_outputs",
    "build_command", "language_of", "parse_copies", "parse_transfers", "find_unmapped",
    "output_differences", "run_process", "unmapped_constructs", "OFFLOAD_TARGET", "COMPILERS", "INFO_ALL_CHECKS",
]

OFFLOAD_TARGET = "x86_64-pc-linux-gnu"
COMPILERS = {"c": "clang-16", "c++": "clang++-16"}
#: -g is not optional: without it libomptarget names every argument "unknown" and the kernel
#: location "unknown:0:0", which makes reports useless (detection still works, by counting).
BASE_FLAGS = ("-O2", "-g", "-fopenmp", f"-fopenmp-targets={OFFLOAD_TARGET}")
CXX_SUFFIXES = {".cpp", ".cc", ".cxx", ".c++", ".C", ".hpp"}

# LIBOMPTARGET_INFO bits (LLVM OpenMP docs, "LIBOMPTARGET_INFO"):
INFO_KERNEL_ARGS = 0x01  # each kernel / data region entry with its arguments
INFO_MAPPING_EXISTS = 0x02  # "Mapping exists ..." look-ups of present data
INFO_DATA_TRANSFER = 0x20  # "Copying data from host to device ..."
INFO_ALL_CHECKS = INFO_KERNEL_ARGS | INFO_MAPPING_EXISTS | INFO_DATA_TRANSFER


class BuildError(Exception):
    """The compiler failed; the message carries its command line and stderr."""

    def __init__(self, message: str, stderr: str = "", cmd: Sequence[str] = ()):
        super().__init__(message)
        self.stderr = stderr
        self.cmd = tuple(cmd)


@dataclass(frozen=True)
class CopyStats:
    """Host-to-device and device-to-host copies of one run (count and bytes per direction)."""

    h2d_count: int
    h2d_bytes: int
    d2h_count: int
    d2h_bytes: int

    @property
    def total_count(self) -> int:
        return self.h2d_count + self.d2h_count

    @property
    def total_bytes(self) -> int:
        return self.h2d_bytes + self.d2h_bytes


@dataclass(frozen=True)
class RunResult:
    stdout: str
    stderr: str  # the program's stderr, libomptarget's INFO lines included
    returncode: int
    copies: CopyStats
    #: one "NAME (kernel at FILE:LINE:COL)" per kernel pointer argument that was passed as an
    #: implicit zero-length section while nothing was mapped at that address
    unmapped: tuple[str, ...]
    #: bytes of stdout and stderr read past the kept bound (see :mod:`s2s.verify.bounded_run`)
    dropped: int = 0


# --------------------------------------------------------------------------
# toolchain and build
# --------------------------------------------------------------------------

_SMOKE_PROGRAM = """\
#include <stdio.h>
int main(void) {
  double a[8];
  for (int i = 0; i < 8; ++i) a[i] = i;
#pragma omp target teams distribute parallel for map(tofrom: a[0:8])
  for (int i = 0; i < 8; ++i) a[i] *= 2.0;
  printf("%g\\n", a[7]);
  return 0;
}
"""


@functools.lru_cache(maxsize=1)
def toolchain_problem() -> str | None:
    """None when clang-16/clang++-16 build host-offload programs whose copies libomptarget
    logs; otherwise one line saying what is wrong (checked once per process by really building
    and running a tiny program, because a missing host plugin only shows at run time, as a
    silent fallback to host execution with no copies)."""
    for compiler in COMPILERS.values():
        if shutil.which(compiler) is None:
            return f"{compiler} not found on PATH (apt-get install clang-16 libomp-16-dev)"
    with tempfile.TemporaryDirectory(prefix="s2s_omp_smoke_") as tmp:
        src = Path(tmp) / "smoke.c"
        src.write_text(_SMOKE_PROGRAM)
        try:
            build([src], Path(tmp) / "smoke")
        except BuildError as error:
            return f"clang-16 cannot build OpenMP host offload programs: {_first_lines(str(error))}"
        except OSError as error:
            return f"clang-16 could not be run: {error}"
        try:
            result = run(Path(tmp) / "smoke", timeout=30)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"the offload smoke test did not run: {error}"
    if result.returncode != 0 or result.stdout.strip() != "14":
        return (f"the offload smoke test failed (exit {result.returncode}): "
                f"{_first_lines(result.stderr)}")
    if result.copies.h2d_count == 0:
        return ("libomptarget did not offload to the host device (no copies logged); is "
                "libomptarget.rtl.x86_64 from libomp-16-dev installed?")
    return None


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[:count])


def language_of(sources: Iterable[str | os.PathLike]) -> str:
    """'c++' when any source has a C++ suffix, else 'c'."""
    return "c++" if any(Path(s).suffix in CXX_SUFFIXES for s in sources) else "c"


def build_command(sources: Sequence[str | os.PathLike], exe: str | os.PathLike,
                  language: str | None = None, extra_flags: Sequence[str] = ()) -> list[str]:
    """The clang command line that :func:`build` runs."""
    language = language or language_of(sources)
    if language not in COMPILERS:
        raise ValueError(f"language must be one of {sorted(COMPILERS)}, not {language!r}")
    kept = allowed_flags(extra_flags)[0]   # never the user's -fplugin=, -o, -MF (issue 32)
    return [COMPILERS[language], *BASE_FLAGS, *kept, *map(str, sources), "-o", str(exe),
            "-lm"]


def build(sources: str | os.PathLike | Sequence[str | os.PathLike], exe: str | os.PathLike,
          language: str | None = None, extra_flags: Sequence[str] = ()) -> None:
    """Compile ``sources`` into ``exe`` with host offload; raise :class:`BuildError` on failure.

    ``language`` ('c' or 'c++') defaults to what the suffixes say. Warnings are not errors
    unless ``extra_flags`` says so (e.g. ``("-Wall", "-Werror")``).
    """
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    cmd = build_command(sources, exe, language, extra_flags)
    proc = run_process(cmd)  # its own session: killed, with what it started, if verify stops
    if proc.returncode != 0:
        raise BuildError(f"build failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr}",
                         proc.stderr, cmd)


# --------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------


def run(exe: str | os.PathLike, args: Sequence[str] = (), timeout: float = 60.0, *,
        cwd: str | os.PathLike | None = None, env: Mapping[str, str] | None = None,
        argv0: str | None = None) -> RunResult:
    """Run ``exe`` once with ``LIBOMPTARGET_INFO`` set to log copies, kernel arguments and
    mapping look-ups, and parse that log. ``OMP_NUM_THREADS`` defaults to 2 so that parallel
    test runs do not oversubscribe the machine. ``argv0`` is the program's ``argv[0]`` (default:
    the executable's absolute path), so that two builds in different places can be run under
    one name. Raises ``subprocess.TimeoutExpired`` (see :func:`run_process`)."""
    full_env = dict(os.environ)
    full_env.setdefault("OMP_NUM_THREADS", "2")
    full_env.update(env or {})
    full_env["LIBOMPTARGET_INFO"] = str(INFO_ALL_CHECKS)
    path = str(Path(exe).absolute())
    proc = run_process([argv0 or path, *map(str, args)], executable=path, timeout=timeout,
                       env=full_env, cwd=cwd)
    unmapped = tuple(f"{p['name']} (kernel at {p['kernel']})" for p in find_unmapped(proc.stderr))
    return RunResult(proc.stdout, proc.stderr, proc.returncode, parse_copies(proc.stderr), unmapped,
                     sum(proc.dropped.values()))


def unmapped_constructs(result: RunResult) -> int:
    """How many distinct target constructs (kernel locations) used a pointer with no
    mapping in a run: what ``s2s omp``'s "N left unmapped" must agree with."""
    return len({entry.rsplit(" (kernel at ", 1)[1] for entry in result.unmapped})


# --------------------------------------------------------------------------
# LIBOMPTARGET_INFO parsing
# --------------------------------------------------------------------------

_COPY_RE = re.compile(r"Copying data from (host to device|device to host),"
                      r".*?\bSize=(\d+)(?:, Name=(.*?))?\s*$")


def parse_transfers(text: str) -> list[tuple[str, int, str]]:
    """Every copy in a ``LIBOMPTARGET_INFO`` (bit 0x20) log, in order, as (direction, bytes,
    name) with direction 'h2d' or 'd2h' and name the map clause text ('unknown' without -g).
    Map clauses, ``target update`` and 8-byte pointer attach copies all count; lines that are
    not libomptarget's are ignored, so stdout+stderr may be passed."""
    transfers = []
    for line in text.splitlines():
        match = _COPY_RE.search(line)
        if match:
            direction = "h2d" if match.group(1) == "host to device" else "d2h"
            transfers.append((direction, int(match.group(2)), match.group(3) or ""))
    return transfers


def parse_copies(text: str) -> CopyStats:
    """Count and size of the copies in a ``LIBOMPTARGET_INFO`` log, per direction."""
    counts = {"h2d": [0, 0], "d2h": [0, 0]}
    for direction, size, _name in parse_transfers(text):
        counts[direction][0] += 1
        counts[direction][1] += size
    return CopyStats(counts["h2d"][0], counts["h2d"][1], counts["d2h"][0], counts["d2h"][1])


_REGION_RE = re.compile(r"(Entering|Exiting) OpenMP (kernel|data region) at (\S+) with \d+ arguments")
_ARG_RE = re.compile(r"info: ([A-Za-z_|]+)\((.*)\)\[(\d+)\]\s*(\(implicit\))?\s*$")
_IMPLICIT_LOOKUP_RE = re.compile(r"Mapping exists \(implicit\) with .*\bSize=(\d+),.*\bName=(.*?)\s*$")


def find_unmapped(text: str) -> list[dict[str, str]]:
    """Kernel pointer arguments used with no device mapping, as ``{"kernel": loc, "name": p}``.

    A pointer used in a target region without a map clause becomes an implicit zero-length
    section, logged (bit 0x1) as ``use_address(p)[0] (implicit)``. If its pointee is present
    (an enclosing ``target data``, ``enter data`` ...) the runtime logs (bit 0x2) ``Mapping
    exists (implicit) with ... Size=0 ... Name=p``; if not, the kernel gets the raw host
    address. Arguments and look-ups are matched as multisets per kernel (the look-ups come in
    reverse order), which also works when every name is 'unknown' (a build without -g).
    """
    problems: list[dict[str, str]] = []
    kernel: str | None = None
    pending: list[str] = []
    found: Counter[str] = Counter()

    def flush() -> None:
        for name in pending:
            if found[name] > 0:
                found[name] -= 1
            else:
                problems.append({"kernel": kernel or "unknown", "name": name})

    for line in text.splitlines():
        match = _REGION_RE.search(line)
        if match:
            if kernel is not None:
                flush()
            is_kernel = match.group(1) == "Entering" and match.group(2) == "kernel"
            kernel = match.group(3) if is_kernel else None
            pending, found = [], Counter()
            continue
        if kernel is None:
            continue
        match = _IMPLICIT_LOOKUP_RE.search(line)
        if match:
            if int(match.group(1)) == 0:
                found[match.group(2)] += 1
            continue
        match = _ARG_RE.search(line)
        if match and "Mapping exists" not in line:
            _kind, name, size, implicit = match.groups()
            if implicit and int(size) == 0:
                pending.append(name)
    if kernel is not None:
        flush()
    return problems


# --------------------------------------------------------------------------
# output comparison
# --------------------------------------------------------------------------

_NUM_RE = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\b(?:inf(?:inity)?|nan)\b)",
                     re.IGNORECASE)


def _numbers_close(a: str, b: str, rel_tol: float) -> bool:
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if x == y:
        return True
    return rel_tol > 0 and abs(x - y) <= rel_tol * max(abs(x), abs(y))


def output_differences(expected: str, actual: str, rel_tol: float = 0.0,
                       ignore: Sequence[str | re.Pattern[str]] = ()) -> list[str]:
    """Every differing line, described. Lines are compared one by one: numbers (ints, floats,
    inf, nan) within the relative tolerance (0: equal values, so ``1.50`` equals ``1.5``), the
    text between them exactly; trailing whitespace and trailing blank lines are ignored. Lines
    matching (``re.search``) a pattern of ``ignore`` are left out of both sides, for output that
    legitimately differs between runs (timings); the others keep their line numbers."""
    exp_lines = _compared_lines(expected, ignore)
    act_lines = _compared_lines(actual, ignore)
    diffs: list[str] = []
    for (no, exp), (act_no, act) in zip(exp_lines, act_lines, strict=False):
        if exp == act:
            continue
        exp_nums, act_nums = _NUM_RE.findall(exp), _NUM_RE.findall(act)
        same = (_NUM_RE.split(exp) == _NUM_RE.split(act) and len(exp_nums) == len(act_nums)
                and all(_numbers_close(x, y, rel_tol) for x, y in zip(exp_nums, act_nums, strict=True)))
        if not same:
            where = "" if act_no == no else f" (its line {act_no})"
            diffs.append(f"line {no}: expected {exp!r}, got {act!r}{where}")
    if len(exp_lines) != len(act_lines):
        shorter = min(len(exp_lines), len(act_lines))
        extra_no, extra = (exp_lines if len(exp_lines) > shorter else act_lines)[shorter]
        which = "missing" if len(exp_lines) > shorter else "unexpected"
        counted = ", not counting ignored lines" if ignore else ""
        diffs.append(f"line count differs: expected {len(exp_lines)}, got {len(act_lines)}"
                     f"{counted} (first {which} line {extra_no}: {extra!r})")
    return diffs


def _compared_lines(text: str, ignore: Sequence[str | re.Pattern[str]]) -> list[tuple[int, str]]:
    """(line number, line without trailing whitespace) of the lines of ``text`` that no
    pattern of ``ignore`` matches; trailing blank lines are not lines."""
    patterns = [re.compile(p) for p in ignore]
    lines = enumerate((line.rstrip() for line in text.rstrip().splitlines()), start=1)
    return [(no, line) for no, line in lines if not any(p.search(line) for p in patterns)]


def compare_outputs(expected: str, actual: str, rel_tol: float = 0.0) -> str | None:
    """None when the outputs agree (see :func:`output_differences`), else the first
    difference."""
    diffs = output_differences(expected, actual, rel_tol)
    return diffs[0] if diffs else None
