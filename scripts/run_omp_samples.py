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

Building, running and the log parsing live in ``s2s.verify.omp_harness``
(standard library only); this script adds the sample catalogue and the command
line. It runs with any Python >= 3.11 (tomllib): when s2s is not installed it
imports the harness from this checkout.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import tomllib

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples" / "openmp"

try:
    from s2s.verify import omp_harness as harness
except ImportError:  # run with a Python that has not installed s2s: use the checkout
    sys.path.insert(0, str(REPO_ROOT))
    from s2s.verify import omp_harness as harness

OFFLOAD_TARGET = harness.OFFLOAD_TARGET
COMPILERS = harness.COMPILERS

# LIBOMPTARGET_INFO bits (see the LLVM OpenMP docs, "LIBOMPTARGET_INFO"):
INFO_KERNEL_ARGS = harness.INFO_KERNEL_ARGS  # kernel/data-region entry with its arguments
INFO_MAPPING_EXISTS = harness.INFO_MAPPING_EXISTS  # "Mapping exists ..." lookups of present data
INFO_DATA_TRANSFER = harness.INFO_DATA_TRANSFER  # "Copying data from host to device ..."
INFO_ALL_CHECKS = harness.INFO_ALL_CHECKS

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
# LIBOMPTARGET_INFO parsing and output comparison (kept for callers of this script's
# helpers; the logic lives in s2s.verify.omp_harness)
# --------------------------------------------------------------------------


def count_copies(text: str) -> dict:
    """Count the data transfers in libomptarget's ``LIBOMPTARGET_INFO`` (bit 0x20) log.

    Returns ``{"h2d": int, "h2d_bytes": int, "d2h": int, "d2h_bytes": int,
    "transfers": [(direction, size, name), ...]}``; see
    ``omp_harness.parse_transfers`` for what counts as a copy.
    """
    stats = harness.parse_copies(text)
    return {
        "h2d": stats.h2d_count,
        "h2d_bytes": stats.h2d_bytes,
        "d2h": stats.d2h_count,
        "d2h_bytes": stats.d2h_bytes,
        "transfers": harness.parse_transfers(text),
    }


def find_unmapped_pointers(text: str) -> list[dict]:
    """Pointers that target regions use without any device mapping, as
    ``[{"kernel": "prog.c:42:5", "name": "b"}, ...]`` (needs ``LIBOMPTARGET_INFO`` bits
    0x1 and 0x2); see ``omp_harness.find_unmapped``."""
    return harness.find_unmapped(text)


def compare_output(expected: str, actual: str, tolerance: float = 0.0) -> list[str]:
    """Human-readable differences between two outputs (empty list = match): numbers within
    the relative ``tolerance``, other text exactly; see ``omp_harness.output_differences``."""
    return harness.output_differences(expected, actual, tolerance)


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
    """Return None if clang-16 host offloading works (built and run once), else why not."""
    del langs  # the harness checks clang-16 and clang++-16 both
    return harness.toolchain_problem()


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
    if compiler is None and offload:
        return harness.build_command(sample.sources, exe, sample.lang, extra_flags)
    cc = compiler or COMPILERS[sample.lang]
    if compiler and not compiler.startswith("clang"):
        flags = ["-O2"]  # e.g. plain gcc: pragmas ignored
    else:
        flags = ["-O2", "-g", "-fopenmp"] + ([f"-fopenmp-targets={OFFLOAD_TARGET}"] if offload else [])
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
