#!/usr/bin/env python3
"""Build, run and check the bundled OpenMP offload samples (samples/openmp/).

Each sample lives in ``samples/openmp/<name>/`` with its sources, a
``sample.toml`` and the reference ``expected_output.txt``.  This script builds
every sample with clang-16 (or clang++-16) offloading to the *host* device
(``-fopenmp-targets=x86_64-pc-linux-gnu``), which gives target regions their
own device memory on a machine without a GPU, runs it and optionally:

* ``--compare``       compares stdout with expected_output.txt (numbers with
                      the sample's relative tolerance, other text exactly);
* ``--count-copies``  runs under ``LIBOMPTARGET_INFO`` and reports the number
                      and bytes of host-to-device / device-to-host copies;
* ``--check-mapping`` fails a sample whose target regions use a heap pointer
                      that has no device mapping (it "works" on the host
                      device, which shares the address space, but would be
                      wrong on a discrete GPU).

Usage::

    python scripts/run_omp_samples.py [--out DIR] [--compare] [--count-copies]
                                      [--check-mapping] [--write-expected]
                                      [NAMES...]

Exit status: 0 all good, 1 a build failure / run failure / mismatch /
unmapped pointer, 2 the toolchain (clang-16 + libomptarget) is missing.

The helpers (``count_copies``, ``find_unmapped_pointers``, ``compare_output``,
``build_sample`` ...) are importable by path; scripts/ is not a package::

    spec = importlib.util.spec_from_file_location("run_omp_samples", path)

Standard library only (Python >= 3.11 for tomllib).
"""

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import tomllib

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples" / "openmp"

OFFLOAD_TARGET = "x86_64-pc-linux-gnu"
COMPILERS = {"c": "clang-16", "c++": "clang++-16"}
BASE_FLAGS = ["-O2", "-g", "-fopenmp"]
OFFLOAD_FLAGS = [f"-fopenmp-targets={OFFLOAD_TARGET}"]

# LIBOMPTARGET_INFO bits (see the LLVM OpenMP docs, "LIBOMPTARGET_INFO"):
INFO_KERNEL_ARGS = 0x01  # kernel/data-region entry with its arguments
INFO_MAPPING_EXISTS = 0x02  # "Mapping exists ..." lookups of present data
INFO_DATA_TRANSFER = 0x20  # "Copying data from host to device ..."
INFO_ALL_CHECKS = INFO_KERNEL_ARGS | INFO_MAPPING_EXISTS | INFO_DATA_TRANSFER

REQUIRED_KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "language": str,
    "description": str,
    "sources": list,
    "args": list,
    "tolerance": (int, float),
    "lang": str,
}


# --------------------------------------------------------------------------
# LIBOMPTARGET_INFO parsing (reused by s2s's tests)
# --------------------------------------------------------------------------

_COPY_RE = re.compile(
    r"Copying data from (host to device|device to host),"
    r".*?\bSize=(\d+)(?:, Name=(.*?))?\s*$"
)


def count_copies(text: str) -> dict:
    """Count the data transfers in libomptarget's ``LIBOMPTARGET_INFO`` log.

    ``text`` is the stderr of a program run with ``LIBOMPTARGET_INFO`` having
    bit 0x20 set (e.g. ``LIBOMPTARGET_INFO=32``); other lines are ignored, so
    the combined stdout+stderr may be passed.  Every line of the form::

        Libomptarget device 0 info: Copying data from host to device,
            HstPtr=0x..., TgtPtr=0x..., Size=800, Name=a[0:n]

    is one copy (map clauses at region entry/exit, ``target update``, and the
    8-byte pointer "attach" copies of mapped struct members all count).

    Returns a dict::

        {"h2d": int, "h2d_bytes": int,      # host -> device copies, bytes
         "d2h": int, "d2h_bytes": int,      # device -> host copies, bytes
         "transfers": [(direction, size, name), ...]}

    where ``direction`` is ``"h2d"`` or ``"d2h"`` and ``name`` is the map
    clause's text (``"unknown"`` or ``""`` when the runtime has none), in
    the order they happened.
    """
    result = {"h2d": 0, "h2d_bytes": 0, "d2h": 0, "d2h_bytes": 0, "transfers": []}
    for line in text.splitlines():
        m = _COPY_RE.search(line)
        if not m:
            continue
        direction = "h2d" if m.group(1) == "host to device" else "d2h"
        size = int(m.group(2))
        result[direction] += 1
        result[direction + "_bytes"] += size
        result["transfers"].append((direction, size, m.group(3) or ""))
    return result


_REGION_RE = re.compile(r"(Entering|Exiting) OpenMP (kernel|data region) at (\S+) with \d+ arguments")
_ARG_RE = re.compile(r"info: ([A-Za-z_|]+)\((.*)\)\[(\d+)\]\s*(\(implicit\))?\s*$")
_IMPLICIT_LOOKUP_RE = re.compile(r"Mapping exists \(implicit\) with .*\bName=(.*?)\s*$")


def find_unmapped_pointers(text: str) -> list[dict]:
    """Find pointers that target regions use without any device mapping.

    A pointer referenced in a target region without a map clause is mapped
    implicitly as a zero-length array section; libomptarget prints it as an
    argument like ``use_address(b)[0] (implicit)``.  If the pointee is present
    on the device (an enclosing ``target data``, ``target enter data`` ...)
    the runtime then reports ``Mapping exists (implicit) with ... Name=b``;
    if nothing is found the kernel receives the raw host address.  That
    happens to work with the host-offload plugin (shared address space) but
    is wrong on a discrete GPU.

    ``text`` must come from a run with ``LIBOMPTARGET_INFO`` bits 0x1 (kernel
    arguments) AND 0x2 (mapping look-ups) set, e.g. ``LIBOMPTARGET_INFO=3``
    or ``35``: bit 0x1 alone lists the arguments but cannot tell whether a
    mapping existed.

    Returns one dict per offending (kernel, pointer) occurrence::

        {"kernel": "prog.c:42:5", "name": "b"}
    """
    problems: list[dict] = []
    kernel = None  # location of the kernel whose block we are in
    pending: list[str] = []  # zero-size implicit args not yet found mapped
    found: set[str] = set()

    def flush() -> None:
        for name in pending:
            if name not in found:
                problems.append({"kernel": kernel, "name": name})

    for line in text.splitlines():
        m = _REGION_RE.search(line)
        if m:
            if kernel is not None:
                flush()
            is_kernel = m.group(1) == "Entering" and m.group(2) == "kernel"
            kernel = m.group(3) if is_kernel else None
            pending, found = [], set()
            continue
        if kernel is None:
            continue
        m = _ARG_RE.search(line)
        if m and "Mapping exists" not in line:
            _kind, name, size, implicit = m.groups()
            if implicit and int(size) == 0 and name != "unknown":
                pending.append(name)
            continue
        m = _IMPLICIT_LOOKUP_RE.search(line)
        if m:
            found.add(m.group(1))
    if kernel is not None:
        flush()
    return problems


# --------------------------------------------------------------------------
# output comparison
# --------------------------------------------------------------------------

_NUM_RE = re.compile(
    r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\b(?:inf(?:inity)?|nan)\b)",
    re.IGNORECASE,
)


def _split_numbers(line: str) -> tuple[list[str], list[str]]:
    """Split a line into its text pieces and its numeric tokens."""
    return _NUM_RE.split(line), _NUM_RE.findall(line)


def _numbers_close(a: str, b: str, tol: float) -> bool:
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if x == y:
        return True
    return tol > 0 and abs(x - y) <= tol * max(abs(x), abs(y))


def compare_output(expected: str, actual: str, tolerance: float = 0.0) -> list[str]:
    """Compare program output with the reference.

    Lines are compared one by one; numbers (ints, floats, inf/nan) are
    compared with the relative ``tolerance`` (0 means exactly equal values),
    the text between them must be identical.  Trailing whitespace and
    trailing blank lines are ignored.  Returns human-readable differences
    (empty list = match).
    """
    exp_lines = [line.rstrip() for line in expected.rstrip().splitlines()]
    act_lines = [line.rstrip() for line in actual.rstrip().splitlines()]
    diffs: list[str] = []
    if len(exp_lines) != len(act_lines):
        diffs.append(f"line count differs: expected {len(exp_lines)}, got {len(act_lines)}")
    for no, (e, a) in enumerate(zip(exp_lines, act_lines, strict=False), start=1):
        if e == a:
            continue
        etext, enums = _split_numbers(e)
        atext, anums = _split_numbers(a)
        ok = (
            etext == atext
            and len(enums) == len(anums)
            and all(_numbers_close(x, y, tolerance) for x, y in zip(enums, anums, strict=True))
        )
        if not ok:
            diffs.append(f"line {no}: expected {e!r}, got {a!r}")
    return diffs


# --------------------------------------------------------------------------
# samples, toolchain, build, run
# --------------------------------------------------------------------------


@dataclass
class Sample:
    name: str
    directory: Path
    meta: dict

    @property
    def lang(self) -> str:
        return self.meta.get("lang", "c")

    @property
    def sources(self) -> list[Path]:
        return [self.directory / s for s in self.meta.get("sources", [])]

    @property
    def args(self) -> list[str]:
        return [str(a) for a in self.meta.get("args", [])]

    @property
    def tolerance(self) -> float:
        return float(self.meta.get("tolerance", 0.0))

    @property
    def expected_path(self) -> Path:
        return self.directory / "expected_output.txt"


def validate_sample(sample: Sample) -> list[str]:
    """Check a sample's sample.toml keys/types and that its sources exist."""
    errors = []
    for key, typ in REQUIRED_KEYS.items():
        if key not in sample.meta:
            errors.append(f"missing key {key!r}")
        elif not isinstance(sample.meta[key], typ) or isinstance(sample.meta[key], bool):
            errors.append(f"key {key!r} has wrong type {type(sample.meta[key]).__name__}")
    if errors:
        return errors
    meta = sample.meta
    if meta["name"] != sample.directory.name:
        errors.append(f"name {meta['name']!r} differs from directory {sample.directory.name!r}")
    if meta["language"] != "openmp":
        errors.append(f"language must be 'openmp', not {meta['language']!r}")
    if meta["lang"] not in COMPILERS:
        errors.append(f"lang must be one of {sorted(COMPILERS)}, not {meta['lang']!r}")
    if not meta["description"].strip():
        errors.append("empty description")
    if not meta["sources"]:
        errors.append("no sources")
    for src in sample.sources:
        if not src.is_file():
            errors.append(f"source {src.name} does not exist")
    if not all(isinstance(a, (str, int, float)) for a in meta["args"]):
        errors.append("args must be strings or numbers")
    if meta["tolerance"] < 0:
        errors.append("tolerance must be >= 0")
    if not sample.expected_path.is_file():
        errors.append("expected_output.txt missing")
    return errors


def load_sample(toml_path: Path | str) -> Sample:
    toml_path = Path(toml_path)
    with open(toml_path, "rb") as fh:
        meta = tomllib.load(fh)
    return Sample(name=meta.get("name", toml_path.parent.name), directory=toml_path.parent, meta=meta)


def sample_tomls(samples_dir: Path = SAMPLES_DIR) -> list[Path]:
    return sorted(samples_dir.glob("*/sample.toml"))


def discover_samples(names: list[str] | None = None, samples_dir: Path = SAMPLES_DIR) -> list[Sample]:
    samples = [load_sample(p) for p in sample_tomls(samples_dir)]
    if names:
        by_name = {s.directory.name: s for s in samples}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise SystemExit(f"unknown sample(s): {', '.join(unknown)}; known: {', '.join(sorted(by_name))}")
        samples = [by_name[n] for n in names]
    return samples


def toolchain_problem(langs: tuple[str, ...] = ("c", "c++")) -> str | None:
    """Return None if clang-16 host offloading looks usable, else why not."""
    for lang in langs:
        if shutil.which(COMPILERS[lang]) is None:
            return f"{COMPILERS[lang]} not found on PATH"
    clang = Path(shutil.which(COMPILERS[langs[0]])).resolve()
    libdirs = [clang.parent.parent / "lib", Path("/usr/lib/llvm-16/lib")]
    for d in libdirs:
        if (d / "libomptarget.so").exists() and any(d.glob("libomptarget.rtl.x86_64*.so*")):
            return None
    return "libomptarget (host plugin libomptarget.rtl.x86_64) not found; install libomp-16-dev"


@dataclass
class BuildResult:
    ok: bool
    exe: Path
    seconds: float
    cmd: list[str]
    stderr: str = ""


def build_command(
    sample: Sample,
    exe: Path,
    offload: bool = True,
    compiler: str | None = None,
    extra_flags: list[str] | tuple[str, ...] = (),
) -> list[str]:
    cc = compiler or COMPILERS[sample.lang]
    if compiler and not compiler.startswith("clang"):
        flags = ["-O2"]  # e.g. plain gcc: pragmas ignored
    else:
        flags = BASE_FLAGS + (OFFLOAD_FLAGS if offload else [])
    return [cc, *flags, *extra_flags, *map(str, sample.sources), "-o", str(exe), "-lm"]


def build_sample(
    sample: Sample,
    outdir: Path,
    offload: bool = True,
    compiler: str | None = None,
    extra_flags: list[str] | tuple[str, ...] = (),
    suffix: str = "",
) -> BuildResult:
    """Compile a sample into ``outdir/<name><suffix>``; host offload by default."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    exe = outdir / f"{sample.name}{suffix}"
    cmd = build_command(sample, exe, offload, compiler, extra_flags)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    return BuildResult(proc.returncode == 0, exe, dt, cmd, proc.stderr)


def run_sample(
    sample: Sample, exe: Path, info: int | None = None, timeout: float = 120.0
) -> subprocess.CompletedProcess:
    """Run a built sample with its args; ``info`` sets LIBOMPTARGET_INFO."""
    env = dict(os.environ)
    env.pop("LIBOMPTARGET_INFO", None)
    env.setdefault("OMP_NUM_THREADS", "2")
    if info is not None:
        env["LIBOMPTARGET_INFO"] = str(info)
    return subprocess.run(
        [str(exe), *sample.args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=sample.directory,
    )


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def _fmt_bytes(n: int) -> str:
    return f"{n:,}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("names", nargs="*", metavar="NAMES", help="samples to run (default: all)")
    ap.add_argument("--out", type=Path, help="keep executables and logs in DIR (default: a temp dir)")
    ap.add_argument("--compare", action="store_true", help="compare stdout with expected_output.txt")
    ap.add_argument(
        "--count-copies",
        action="store_true",
        help="run under LIBOMPTARGET_INFO and report H2D/D2H copies and bytes",
    )
    ap.add_argument(
        "--check-mapping",
        action="store_true",
        help="fail if a target region uses a heap pointer with no device mapping",
    )
    ap.add_argument(
        "--write-expected", action="store_true", help="(re)write expected_output.txt from this run's stdout"
    )
    args = ap.parse_args(argv)

    samples = discover_samples(args.names or None)
    langs = tuple(sorted({s.lang for s in samples})) or ("c",)
    problem = toolchain_problem(langs)
    if problem:
        print(
            f"error: clang-16 with OpenMP offload is not usable: {problem}.\n"
            f"Install it (apt-get install clang-16 libomp-16-dev, or run scripts/setup.sh).",
            file=sys.stderr,
        )
        return 2

    tmp = None
    if args.out:
        outdir = args.out.resolve()
        outdir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="omp_samples_")
        outdir = Path(tmp.name)

    info = 0
    if args.count_copies:
        info |= INFO_DATA_TRANSFER
    if args.check_mapping:
        info |= INFO_KERNEL_ARGS | INFO_MAPPING_EXISTS

    rows = []
    failed = False
    try:
        for s in samples:
            row = {
                "name": s.name,
                "build": "-",
                "run": "-",
                "compare": "-",
                "h2d": "",
                "h2d_b": "",
                "d2h": "",
                "d2h_b": "",
                "unmapped": "",
            }
            rows.append(row)
            errs = validate_sample(s)
            if errs and not (args.write_expected and errs == ["expected_output.txt missing"]):
                row["build"] = "BAD TOML"
                print(f"[{s.name}] invalid sample: {'; '.join(errs)}", file=sys.stderr)
                failed = True
                continue
            b = build_sample(s, outdir)
            row["build"] = f"{b.seconds:.2f}s" if b.ok else "FAILED"
            if not b.ok:
                print(f"[{s.name}] build failed: {' '.join(b.cmd)}\n{b.stderr}", file=sys.stderr)
                failed = True
                continue
            if b.stderr.strip():
                print(f"[{s.name}] build warnings:\n{b.stderr}", file=sys.stderr)
            try:
                proc = run_sample(s, b.exe, info=info or None)
            except subprocess.TimeoutExpired:
                row["run"] = "TIMEOUT"
                failed = True
                continue
            row["run"] = "ok" if proc.returncode == 0 else f"rc={proc.returncode}"
            if proc.returncode != 0:
                print(f"[{s.name}] exited with {proc.returncode}\n{proc.stderr[-2000:]}", file=sys.stderr)
                failed = True
            if args.out:
                (outdir / f"{s.name}.stdout").write_text(proc.stdout)
                (outdir / f"{s.name}.stderr").write_text(proc.stderr)
            if args.write_expected and proc.returncode == 0:
                s.expected_path.write_text(proc.stdout)
            if args.compare:
                if not s.expected_path.is_file():
                    row["compare"] = "NO REF"
                    failed = True
                else:
                    diffs = compare_output(s.expected_path.read_text(), proc.stdout, s.tolerance)
                    row["compare"] = "match" if not diffs else "MISMATCH"
                    if diffs:
                        failed = True
                        print(f"[{s.name}] output mismatch:\n  " + "\n  ".join(diffs[:10]), file=sys.stderr)
            if args.count_copies:
                c = count_copies(proc.stderr)
                row.update(
                    h2d=str(c["h2d"]),
                    h2d_b=_fmt_bytes(c["h2d_bytes"]),
                    d2h=str(c["d2h"]),
                    d2h_b=_fmt_bytes(c["d2h_bytes"]),
                )
            if args.check_mapping:
                bad = find_unmapped_pointers(proc.stderr)
                row["unmapped"] = "none" if not bad else ",".join(sorted({p["name"] for p in bad}))
                if bad:
                    failed = True
                    for p in bad:
                        print(
                            f"[{s.name}] pointer {p['name']!r} used unmapped in kernel at {p['kernel']}",
                            file=sys.stderr,
                        )
    finally:
        if tmp is not None:
            tmp.cleanup()

    cols = [("sample", "name"), ("build", "build"), ("run", "run")]
    if args.compare:
        cols.append(("output", "compare"))
    if args.count_copies:
        cols += [("H2D", "h2d"), ("H2D bytes", "h2d_b"), ("D2H", "d2h"), ("D2H bytes", "d2h_b")]
    if args.check_mapping:
        cols.append(("unmapped ptrs", "unmapped"))
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h) for h, k in cols]
    print("  ".join(h.ljust(w) for (h, _), w in zip(cols, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(r[k].ljust(w) for (_, k), w in zip(cols, widths, strict=True)))
    print(f"\n{len(rows)} sample(s): {'FAILED' if failed else 'all OK'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
