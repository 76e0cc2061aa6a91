#!/usr/bin/env python3
"""Issue 30, items 1 and 4: s2s beside clang on the same files, in the same run, as ratios.

Cases (each command a fresh process, cold: no fact cache; CPU = user + system time of the
process and its children, from ``wait4``; peak = the largest resident set of the process
tree's members, also from ``wait4``):

* ``omp50k``: the 50,000-line, 11-file OpenMP program of ``bench_omp.py --scale`` (2,006
  target regions): ``s2s omp FILES -o DIR`` against ``clang-16 -fsyntax-only -fopenmp FILES``;
* ``cuda1mb``: a 1 MB CUDA file (``gen_big_cu.py --lines 30000``): ``s2s inspect FILE``
  (and ``--format json``, which skips rich's tables) against libclang's parse of it with the
  same headers and flags (``s2s.frontend.core.parse.parse_file``, in a process of its own);
* ``notarget``: a 4,400-line OpenMP C file with no target region (the first kernel file of
  omp50k without its pragmas, ``omp.h`` still included): ``s2s omp FILE`` against
  ``clang-16 -fsyntax-only -fopenmp FILE``;
* ``help``: ``s2s --help`` (no clang counterpart).

``--tree DIR`` runs s2s from another source tree (``git archive REV s2s runtime | tar -x -C
DIR``), ahead of the installed one, to measure a before and an after in the same run.

Usage: ``python scripts/bench_walk.py [--runs 3] [--cases omp50k,cuda1mb,notarget,help]
[--tree DIR] [--markdown]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

#: runs s2s from the tree named first, ahead of an editable install of another checkout
TREE_RUNNER = """\
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
sys.argv = ["s2s", *sys.argv[2:]]
from s2s.cli.main import main
raise SystemExit(main())
"""
PARSE_ONLY = """\
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
from s2s.frontend.core.parse import parse_file
parse_file(sys.argv[2])
"""


def measure(argv: list[str], cwd: str) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS MB, exit code) of one run of ``argv``."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def s2s_argv(tree: str, *args: str) -> list[str]:
    return [sys.executable, "-c", TREE_RUNNER, tree, *args]


def make_inputs(work: Path, cases: set[str]) -> dict[str, Path]:
    import gen_big_cu  # noqa: PLC0415 - a script beside this one
    from bench_omp import scale_program  # noqa: PLC0415

    made: dict[str, Path] = {}
    if cases & {"omp50k", "notarget"}:
        program = work / "omp50k"
        program.mkdir(exist_ok=True)
        for name, text in scale_program(50000, 10, 2000).items():
            (program / name).write_text(text)
        made["omp50k"] = program
        plain = work / "notarget"
        plain.mkdir(exist_ok=True)
        lines, kept, skip = (program / "kernels_0.c").read_text().split("\n"), [], False
        for line in lines:              # the pragmas and their continuation lines go
            if skip or line.lstrip().startswith("#pragma omp"):
                skip = line.rstrip().endswith("\\")
                continue
            kept.append(line)
        (plain / "notarget.c").write_text("\n".join(kept))
        (plain / "kernels.h").write_text((program / "kernels.h").read_text())
        made["notarget"] = plain
    if "cuda1mb" in cases:
        big = work / "cuda1mb"
        big.mkdir(exist_ok=True)
        (big / "big.cu").write_text(gen_big_cu.generate_cuda(30000))
        made["cuda1mb"] = big
    return made


def commands(case: str, where: Path, tree: str) -> list[tuple[str, list[str]]]:
    """(label, argv) of the case: s2s first, clang's counterpart last."""
    if case == "omp50k":
        files = ["main.c", *sorted(p.name for p in where.glob("kernels_*.c"))]
        out = tempfile.mkdtemp(prefix="bench_walk_out_")
        return [("s2s omp -o DIR", s2s_argv(tree, "omp", *files, "-o", out)),
                ("clang-16 -fsyntax-only -fopenmp", ["clang-16", "-fsyntax-only", "-fopenmp", *files])]
    if case == "cuda1mb":
        return [("s2s inspect", s2s_argv(tree, "inspect", "big.cu")),
                ("s2s inspect --format json", s2s_argv(tree, "inspect", "--format", "json", "big.cu")),
                ("libclang parse (same headers)", [sys.executable, "-c", PARSE_ONLY, tree, "big.cu"])]
    if case == "notarget":
        return [("s2s omp", s2s_argv(tree, "omp", "notarget.c")),
                ("clang-16 -fsyntax-only -fopenmp", ["clang-16", "-fsyntax-only", "-fopenmp", "notarget.c"])]
    return [("s2s --help", s2s_argv(tree, "--help"))]


def run_case(case: str, where: Path, tree: str, runs: int) -> list[dict]:
    rows = []
    for label, argv in commands(case, where, tree):
        got = [measure(argv, str(where)) for _ in range(runs)]
        rows.append({"case": case, "command": label, "wall": statistics.median(g[0] for g in got),
                     "cpu": statistics.median(g[1] for g in got), "cpus": [g[1] for g in got],
                     "peak": max(g[2] for g in got), "rc": sorted({g[3] for g in got})})
    base = rows[-1] if len(rows) > 1 else None
    for row in rows:
        row["ratio"] = row["cpu"] / base["cpu"] if base and base["cpu"] else None
    return rows


def render(rows: list[dict], markdown: bool) -> str:
    head = ["case", "command", "CPU s (median)", "runs", "wall s", "peak MB", "CPU / clang's", "exit"]
    lines = [head] + [[r["case"], r["command"], f"{r['cpu']:.2f}", " ".join(f"{c:.2f}" for c in r["cpus"]),
                       f"{r['wall']:.2f}", f"{r['peak']:.0f}",
                       f"{r['ratio']:.1f}x" if r["ratio"] is not None else "-",
                       ",".join(map(str, r["rc"]))] for r in rows]
    if markdown:
        out = ["| " + " | ".join(lines[0]) + " |", "|" + "---|" * len(head)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines[1:]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cases", default="omp50k,cuda1mb,notarget,help")
    ap.add_argument("--tree", default=str(REPO), help="source tree of the s2s to run")
    ap.add_argument("--work", help="keep the generated inputs in this directory")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    work = Path(args.work or tempfile.mkdtemp(prefix="bench_walk_"))
    work.mkdir(parents=True, exist_ok=True)
    inputs = make_inputs(work, set(cases))
    rows = []
    for case in cases:
        case_rows = run_case(case, inputs.get(case, work), os.path.abspath(args.tree), args.runs)
        rows += case_rows
        print(render(case_rows, False), file=sys.stderr)
    print(f"s2s from {args.tree}; {os.cpu_count()} CPUs; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(render(rows, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
