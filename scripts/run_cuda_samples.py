#!/usr/bin/env python3
"""Build, run and (optionally) check the bundled CUDA sample programs.

Usage::

    python scripts/run_cuda_samples.py [--build-only] [--out DIR] [--compare]
                                       [--write-expected] [NAMES...]

For every sample directory ``samples/cuda/<name>/`` (or only the NAMES
given) this reads ``sample.toml``, builds all ``sources`` with
``nvcc -arch=sm_90 <nvcc_flags> <sources> -o <tmp>/<name>`` and, unless
``--build-only``, runs the binary with the sample's ``args``, writing its
stdout to ``DIR/<name>.txt`` (stderr, when non-empty, to
``DIR/<name>.stderr.txt``).

``--compare`` checks each output against
``samples/cuda/<name>/expected_output.txt``: the text between numbers must
match exactly, numbers must agree within the sample's relative
``tolerance`` (0 means equal values).  ``--write-expected`` stores the
fresh output as ``expected_output.txt`` (use on the reference GPU only).

The exit status is 1 when a build, a run or a comparison failed, 2 when
nvcc cannot be found, 0 otherwise.  Standard library only.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples" / "cuda"
ARCH_FLAG = "-arch=sm_90"
EXPECTED_NAME = "expected_output.txt"

REQUIRED_KEYS = {
    "name": str,
    "language": str,
    "description": str,
    "sources": list,
    "headers": list,
    "args": list,
    "tolerance": (int, float),
    "nvcc_flags": list,
}

# A number as printf("%d" / "%g" / "%e" / "%f") writes it, plus inf/nan.
_NUMBER_RE = re.compile(
    r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?<![A-Za-z_])[-+]?(?:inf(?:inity)?|nan)\b",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------
# sample discovery / metadata
# --------------------------------------------------------------------------

def find_nvcc() -> str | None:
    """nvcc from $NVCC, $PATH or the default CUDA install, else None."""
    env = os.environ.get("NVCC")
    if env and Path(env).is_file():
        return env
    found = shutil.which("nvcc")
    if found:
        return found
    default = Path("/usr/local/cuda/bin/nvcc")
    return str(default) if default.is_file() else None


def sample_dirs(names: list[str] | None = None) -> list[Path]:
    """Sample directories (those holding a sample.toml), sorted by name."""
    all_dirs = sorted(p.parent for p in SAMPLES_DIR.glob("*/sample.toml"))
    if not names:
        return all_dirs
    by_name = {d.name: d for d in all_dirs}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit(
            f"unknown sample(s): {', '.join(missing)} "
            f"(known: {', '.join(sorted(by_name))})"
        )
    return [by_name[n] for n in names]


def load_sample(sample_dir: Path) -> dict:
    """Read and validate sample.toml; raise ValueError on problems."""
    with open(sample_dir / "sample.toml", "rb") as fh:
        meta = tomllib.load(fh)
    problems = []
    for key, typ in REQUIRED_KEYS.items():
        if key not in meta:
            problems.append(f"missing key {key!r}")
        elif not isinstance(meta[key], typ) or isinstance(meta[key], bool):
            problems.append(f"key {key!r} has type {type(meta[key]).__name__}")
    if problems:
        raise ValueError(f"{sample_dir / 'sample.toml'}: " + "; ".join(problems))
    for key in ("sources", "headers", "args", "nvcc_flags"):
        if not all(isinstance(v, str) for v in meta[key]):
            raise ValueError(f"{sample_dir / 'sample.toml'}: {key} must be strings")
    return meta


# --------------------------------------------------------------------------
# output comparison
# --------------------------------------------------------------------------

def _split_line(line: str) -> tuple[list[str], list[str]]:
    """Split a line into its non-numeric text pieces and its numbers."""
    texts, numbers = [], []
    pos = 0
    for m in _NUMBER_RE.finditer(line):
        texts.append(line[pos:m.start()])
        numbers.append(m.group(0))
        pos = m.end()
    texts.append(line[pos:])
    return texts, numbers


def _numbers_match(a: str, b: str, tolerance: float) -> bool:
    if a == b:
        return True
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if x == y:
        return True
    if tolerance <= 0.0 or math.isinf(x) or math.isinf(y):
        return False
    return abs(x - y) <= tolerance * max(abs(x), abs(y))


def compare_outputs(expected: str, actual: str, tolerance: float) -> list[str]:
    """Differences between two program outputs, as readable messages.

    Lines are compared pairwise (trailing whitespace and trailing empty
    lines ignored).  Within a line, the text around numbers must be equal;
    numbers must be equal or, with tolerance > 0, within that relative
    distance of each other.  An empty list means the outputs match.
    """
    exp_lines = [line.rstrip() for line in expected.rstrip().splitlines()]
    act_lines = [line.rstrip() for line in actual.rstrip().splitlines()]
    diffs = []
    if len(exp_lines) != len(act_lines):
        diffs.append(f"line count differs: expected {len(exp_lines)}, got {len(act_lines)}")
    for lineno, (e, a) in enumerate(zip(exp_lines, act_lines, strict=False), start=1):
        if e == a:
            continue
        e_text, e_num = _split_line(e)
        a_text, a_num = _split_line(a)
        ok = e_text == a_text and len(e_num) == len(a_num) and all(
            _numbers_match(x, y, tolerance) for x, y in zip(e_num, a_num, strict=True)
        )
        if not ok:
            diffs.append(f"line {lineno}: expected {e!r}, got {a!r}")
    return diffs


# --------------------------------------------------------------------------
# build / run
# --------------------------------------------------------------------------

def build_sample(nvcc: str, sample_dir: Path, meta: dict, build_dir: Path):
    """Compile and link the sample; return (exe_path or None, seconds, log)."""
    exe = build_dir / meta["name"]
    cmd = [nvcc, ARCH_FLAG, *meta["nvcc_flags"], *meta["sources"], "-o", str(exe)]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=sample_dir, capture_output=True, text=True)
    seconds = time.monotonic() - start
    log = " ".join(cmd) + "\n" + proc.stdout + proc.stderr
    return (exe if proc.returncode == 0 else None), seconds, log


def run_sample(exe: Path, sample_dir: Path, meta: dict, timeout: float):
    """Run the binary; return (status string, stdout, stderr, seconds)."""
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [str(exe), *meta["args"]], cwd=sample_dir, capture_output=True,
            text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return "timeout", out, "", time.monotonic() - start
    seconds = time.monotonic() - start
    status = "ok" if proc.returncode == 0 else f"rc={proc.returncode}"
    return status, proc.stdout, proc.stderr, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build and run the CUDA samples under samples/cuda.")
    parser.add_argument("names", nargs="*", metavar="NAMES",
                        help="sample names (default: all)")
    parser.add_argument("--build-only", action="store_true",
                        help="compile and link only, do not run")
    parser.add_argument("--out", metavar="DIR", type=Path,
                        help="directory for <name>.txt outputs (default: a new temp dir)")
    parser.add_argument("--compare", action="store_true",
                        help=f"compare outputs with samples/cuda/<name>/{EXPECTED_NAME}")
    parser.add_argument("--write-expected", action="store_true",
                        help=f"store each output as samples/cuda/<name>/{EXPECTED_NAME} "
                             "(reference GPU runs only)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds allowed per program run (default 300)")
    args = parser.parse_args(argv)

    nvcc = find_nvcc()
    if nvcc is None:
        print("nvcc not found (set NVCC, put nvcc on PATH or install CUDA "
              "under /usr/local/cuda)", file=sys.stderr)
        return 2

    dirs = sample_dirs(args.names)
    out_dir = None
    if not args.build_only:
        out_dir = args.out or Path(tempfile.mkdtemp(prefix="cuda_samples_"))
        out_dir.mkdir(parents=True, exist_ok=True)

    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="cuda_samples_build_") as tmp:
        build_root = Path(tmp)
        for sample_dir in dirs:
            name = sample_dir.name
            try:
                meta = load_sample(sample_dir)
            except (ValueError, tomllib.TOMLDecodeError) as exc:
                print(f"[{name}] bad sample.toml: {exc}", file=sys.stderr)
                rows.append((name, "-", "bad toml", "-"))
                failed = True
                continue

            build_dir = build_root / name
            build_dir.mkdir()
            exe, build_s, log = build_sample(nvcc, sample_dir, meta, build_dir)
            if exe is None:
                print(f"[{name}] build failed:\n{log}", file=sys.stderr)
                rows.append((name, f"{build_s:.1f}", "build failed", "-"))
                failed = True
                continue
            if args.build_only:
                rows.append((name, f"{build_s:.1f}", "built", "-"))
                continue

            status, stdout, stderr, run_s = run_sample(
                exe, sample_dir, meta, args.timeout)
            (out_dir / f"{name}.txt").write_text(stdout)
            err_file = out_dir / f"{name}.stderr.txt"
            if stderr:
                err_file.write_text(stderr)
            elif err_file.exists():
                err_file.unlink()
            if status != "ok":
                failed = True
                print(f"[{name}] run {status}; stderr:\n{stderr}", file=sys.stderr)

            check = "-"
            expected_path = sample_dir / EXPECTED_NAME
            if args.compare and status == "ok":
                if not expected_path.is_file():
                    check = "no expected"
                else:
                    diffs = compare_outputs(expected_path.read_text(), stdout,
                                            float(meta["tolerance"]))
                    if diffs:
                        failed = True
                        check = "MISMATCH"
                        print(f"[{name}] output differs from {expected_path}:",
                              file=sys.stderr)
                        for d in diffs[:10]:
                            print(f"    {d}", file=sys.stderr)
                        if len(diffs) > 10:
                            print(f"    ... {len(diffs) - 10} more", file=sys.stderr)
                    else:
                        check = "match"
            if args.write_expected and status == "ok":
                expected_path.write_text(stdout)
                check = "written" if check == "-" else check + ", written"
            rows.append((name, f"{build_s:.1f}", f"{status} ({run_s:.2f}s)", check))

    header = ("sample", "build s", "run", "compare")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
    if out_dir is not None:
        print(f"outputs in {out_dir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
