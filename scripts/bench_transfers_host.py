#!/usr/bin/env python3
"""CUDA calls executed before and after ``s2s transfers``, programs run on cpu devices.

For every transfer sample (Horner, 4x4 tiled Cholesky, 2x2 block matmul, CG steps) this
rewrites the host code with ``s2s transfers``, builds the original and the rewritten program
against the runtime's CUDA host shim (``s2s.verify.cuda_host``), runs both on one emulated cpu
device and prints, from the shim's counters, the number of ``cudaMemcpy``, ``cudaMalloc`` and
``cudaFree`` calls executed and the bytes copied each way, whether the outputs are identical,
the optimizer's fewest transfers of the values (``opt``), and the rewrite time (median of
``--runs``, parse included).

Usage: python scripts/bench_transfers_host.py [--markdown] [--runs 5]
Exit status 0; 1 if an output differs or a program fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.transform.transfers import plan_file, run_transfers  # noqa: E402
from s2s.verify.cuda_host import build, run  # noqa: E402

SAMPLES = ("horner", "cholesky_tiles", "block_matmul", "cg_steps")


def measure(name: str, runs: int, workdir: Path) -> dict:
    path = REPO_ROOT / "samples" / "cuda" / name / f"{name}.cu"
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = process_file(str(path), RunOptions(), run_transfers)
        times.append(time.perf_counter() - start)
    assert isinstance(result, Success)
    plans, _ = plan_file(load(str(path)))
    before = run(build(str(path), workdir / name / "before"))
    after = run(build(str(path), workdir / name / "after", source=result.change.after))
    return dict(name=name, before=before, after=after, opt=plans[0].plan.startups,
                same=before.returncode == after.returncode == 0 and before.stdout == after.stdout,
                ms=statistics.median(times) * 1e3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.chdir(REPO_ROOT)
    header = ["sample", "cudaMemcpy", "opt", "cudaMalloc", "cudaFree", "H2D bytes", "D2H bytes",
              "same output", "rewrite ms"]
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name in SAMPLES:
            r = measure(name, args.runs, Path(tmp))
            b, a = r["before"].counts, r["after"].counts
            failed |= not r["same"]
            rows.append([name, f"{b['cudaMemcpy']} -> {a['cudaMemcpy']}", str(r["opt"]),
                         f"{b['cudaMalloc']} -> {a['cudaMalloc']}", f"{b['cudaFree']} -> {a['cudaFree']}",
                         f"{b['h2d_bytes']} -> {a['h2d_bytes']}", f"{b['d2h_bytes']} -> {a['d2h_bytes']}",
                         "yes" if r["same"] else "NO", f"{r['ms']:.0f}"])
    print(f"# {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')}, samples at their default sizes, 1 cpu device")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
