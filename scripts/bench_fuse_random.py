#!/usr/bin/env python3
"""Random launch sequences through ``s2s fuse`` (issue 19, item 5), more than the CI test runs.

Each seed is one program of :mod:`s2s.verify.fuse_gen` (``--sequences`` independent launch
sequences). For each: ``s2s fuse`` (dropped runs counted), ``nvcc -c -arch=sm_90`` of the
fused file, and, for float/double programs, the original and fused programs replayed on the
cpu devices with their outputs compared bit for bit. ``--half`` makes every program
``__half`` (compile only).

Usage::

    python scripts/bench_fuse_random.py --programs 20 [--start 1000] [--sequences 20] [--half]

Prints one line per program and a summary table; exit 1 when any program failed a check.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
try:
    import s2s  # noqa: F401
except ImportError:  # a Python without s2s installed: use this checkout
    sys.path.insert(0, str(REPO_ROOT))

from runtime.api import Runtime  # noqa: E402
from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.transform.fuse import INVALID_ID, run_fuse  # noqa: E402
from s2s.verify.fuse_gen import generate  # noqa: E402
from s2s.verify.fuse_replay import compare, replay  # noqa: E402


def check(seed: int, sequences: int, dtype: str | None, work: Path, runtime, nvcc) -> dict:
    program = generate(seed, sequences, dtype)
    path = work / f"random_{seed}.cu"
    path.write_text(program.source)
    row = {"seed": seed, "launches": program.launches, "after": None, "dropped": 0,
           "nvcc": None, "match": None}
    result = process_file(str(path), RunOptions(), run_fuse)
    if not isinstance(result, Success):
        row["error"] = "; ".join(d.headline() for d in result.diagnostics)[:300]
        return row
    row["dropped"] = sum(1 for d in result.diagnostics if d.id == INVALID_ID)
    fused = result.change.after
    (work / "fused.cu").write_bytes(fused)
    if nvcc:
        proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(work / "fused.cu"), "-o",
                               str(work / "fused.o")], capture_output=True, text=True)
        row["nvcc"] = proc.returncode == 0
        if proc.returncode:
            row["error"] = proc.stderr[:300]
    if program.runnable:
        before = replay(str(path), runtime=runtime, module_source=fused, traffic=False)
        after = replay(str(path), source=fused, runtime=runtime, traffic=False)
        row["after"] = len(after.launches)
        problems = compare(before, after)
        row["match"] = not problems
        if problems:
            row["error"] = "; ".join(problems)[:300]
    else:
        row["after"] = fused.count(b"<<<")  # the generator writes "<<<" only in launches
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=10)
    parser.add_argument("--start", type=int, default=1000)
    parser.add_argument("--sequences", type=int, default=20)
    parser.add_argument("--half", action="store_true")
    args = parser.parse_args(argv)
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)
    runtime = Runtime("cpu", 1, threads=2)
    rows, began = [], time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.start, args.start + args.programs):
            row = check(seed, args.sequences, "__half" if args.half else None, Path(tmp),
                        runtime, nvcc)
            rows.append(row)
            print(row, flush=True)
    bad = [r for r in rows if r.get("error") or r["dropped"]]
    before = sum(r["launches"] for r in rows)
    after = sum(r["after"] or 0 for r in rows)
    print(f"\n{datetime.date.today()}, {platform.machine()}, {platform.python_version()}, "
          f"nvcc {'yes' if nvcc else 'no'}")
    print("| programs | sequences | launches before | after | runs dropped | nvcc failures "
          "| output mismatches | time |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {len(rows)} | {len(rows) * args.sequences} | {before} | {after} | "
          f"{sum(r['dropped'] for r in rows)} | {sum(1 for r in rows if r['nvcc'] is False)} | "
          f"{sum(1 for r in rows if r['match'] is False)} | {time.time() - began:.0f} s |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
