#!/usr/bin/env python3
"""What the review printers cost: ``--diff`` vs ``--format json`` vs ``--format sarif`` of the
same rewrite, and ``s2s report`` (which also draws the pictures), per sample.

Each command runs in this process (``s2s.cli.main.main``) with stdout discarded; the time is the
median of ``--repeat`` wall times (default 3) after one warm-up run. JSON and SARIF add the
edit records and explanation matching to the pass's own work; the report runs every pass of the
file (omp, or transfers + fuse + mgpu) and the analyses behind its pictures.

Usage::

    python scripts/bench_printers.py [--repeat N] [--markdown]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from s2s.cli.main import main  # noqa: E402

CASES = [
    ("omp", "samples/openmp/saxpy_time_loop/saxpy_time_loop.c"),
    ("omp", "samples/openmp/lulesh_proxy/lulesh_proxy.c"),
    ("transfers", "samples/cuda/elementwise_chain/elementwise_chain.cu"),
    ("fuse", "samples/cuda/elementwise_chain/elementwise_chain.cu"),
    ("mgpu", "samples/cuda/hotspot/hotspot.cu"),
]


def timed(argv: list[str], repeat: int) -> float:
    def once() -> float:
        sink_out, sink_err = io.StringIO(), io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(sink_out), contextlib.redirect_stderr(sink_err):
            main(argv)
        return time.perf_counter() - start

    once()
    return statistics.median(once() for _ in range(repeat))


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    os.chdir(REPO)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for command, path in CASES:
            if not Path(path).is_file():
                continue
            diff = timed([command, "-q", path], args.repeat)
            json_ = timed([command, "-q", "--format", "json", path], args.repeat)
            sarif = timed([command, "-q", "--format", "sarif", path], args.repeat)
            passes = "omp" if command == "omp" else "transfers,fuse,mgpu"
            report = timed(["report", "-q", "--passes", passes, path, "-o",
                            os.path.join(tmp, "r.html")], args.repeat)
            rows.append((command, path, diff, json_, sarif, report))
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d')}; median of {args.repeat}")
    head = ("pass", "file", "--diff s", "json s", "sarif s", "report s (every pass of the file)")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for c, p, *t in rows:
            print(f"| {c} | `{p}` | " + " | ".join(f"{x:.2f}" for x in t) + " |")
    else:
        for c, p, *t in rows:
            print(f"{c:10} {p:55} " + " ".join(f"{x:7.2f}" for x in t))
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
