#!/usr/bin/env python3
"""Time ``s2s omp`` with and without the clang-16 syntax check (issue 17 item 9).

For every program of ``testsuite/corpus/omp`` and ``samples/openmp`` (its sample.toml names
the sources and, maybe, a ``build_dir``), runs ``python -m s2s omp -o TMP SOURCES`` once with
``S2S_CLANG_CHECK=0`` and once with the check, ``--repeat`` times each (the minimum is kept),
and prints the added seconds per program and in total.

    python scripts/bench_clang_check.py [--repeat N] [NAMES...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
SETS = (REPO / "testsuite" / "corpus" / "omp", REPO / "samples" / "openmp")


def _programs(names: list[str]) -> list[Path]:
    found = sorted(p.parent for base in SETS for p in base.glob("*/sample.toml"))
    return [p for p in found if not names or p.name in names]


def _time(directory: Path, check: bool) -> tuple[float, int]:
    with open(directory / "sample.toml", "rb") as handle:
        meta = tomllib.load(handle)
    env = dict(os.environ, PYTHONPATH=str(REPO), S2S_CLANG_CHECK="1" if check else "0")
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "s2s", "omp", "-q", "-o", out]
        if meta.get("build_dir"):
            cmd += ["-p", str(meta["build_dir"])]
        start = time.perf_counter()
        done = subprocess.run([*cmd, *meta["sources"]], cwd=directory, env=env,
                              capture_output=True, check=False)
        return time.perf_counter() - start, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    totals = [0.0, 0.0]
    print(f"{'program':28} {'without':>8} {'with':>8} {'added':>7}  exit")
    for directory in _programs(args.names):
        runs = {}
        for check in (False, True):
            times = [_time(directory, check) for _ in range(args.repeat)]
            runs[check] = (min(t for t, _ in times), times[-1][1])
        without, with_check = runs[False][0], runs[True][0]
        totals[0] += without
        totals[1] += with_check
        codes = f"{runs[False][1]}/{runs[True][1]}"
        print(f"{directory.name:28} {without:8.2f} {with_check:8.2f} "
              f"{with_check - without:+7.2f}  {codes}")
    print(f"{'total':28} {totals[0]:8.2f} {totals[1]:8.2f} {totals[1] - totals[0]:+7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
