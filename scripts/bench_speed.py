#!/usr/bin/env python3
"""Every speed figure of issue 30 beside clang/nvcc, measured in one run, as ratios.

Each command runs as its own process under ``/usr/bin/time`` (wall and CPU seconds, peak
memory); every number is the median of ``--runs`` runs, and s2s's and the compiler's runs
alternate so the load of a shared machine falls on both. Rows:

1. the 50,000-line OpenMP program of 11 files (``bench_omp.scale_program(50000, 10, 2000)``:
   10 kernel files and main.c, with kernels.h), ``s2s omp --diff`` over its .c files: cold
   fact cache (an empty ``XDG_CACHE_HOME`` each run), warm (the same folder after a first run),
   and ``-j 2`` against ``-j 1`` (both cold; wall time, the point of ``-j``) - beside
   ``clang-16 -fsyntax-only -fopenmp`` on the same files;
2. a 1 MB CUDA file (``gen_big_cu.generate_cuda``), ``s2s inspect`` (its text tables, and
   ``--format json``: rich lays out the tables of a big file in most of a warm run), cold and
   warm, time and peak memory - beside clang-16 parsing it with the command line s2s gives libclang (the same
   headers: the CUDA toolkit and s2s's stubs);
3. ``s2s nvcc --s2s-passes=transfers,fuse,mgpu -c`` on a 274-line sample
   (samples/cuda/cholesky_tiles), cold and warm - beside plain ``nvcc -c``;
4. ``s2s --version``, and ``s2s omp`` on a 1,000-line file without a target region beside
   clang-16's parse of it.

Ratios are of CPU seconds (user + system of the process and the children it waited for, so
nvcc's cicc and ptxas count), as the issue measured them: on a shared 2-core machine the wall
time is mostly the wait for a core. Two exceptions: ``-j 2`` against ``-j 1`` (wall: the point
of ``-j``; it needs an idle core to show) and ``s2s --version`` (wall, as the issue's goal).
The issue's goals (<= 3x cold, <= 1x warm, ...) are printed beside each ratio; the script only
measures (no goal fails it), and exits 1 when an s2s command printed different bytes in its
cold, warm or ``-j`` runs. ``--markdown`` prints the table for docs/benchmarks.md.

``--baseline DIR``: every row is measured twice in the same run, for the tree of ``DIR`` (a
``git archive`` of an older commit, run through ``PYTHONPATH``) and for this one, so a change is
measured before and after under the same load: section by section, and in the OpenMP section
run by run (the two trees' commands alternate). Both trees are byte-compiled first
(``compileall``), as an installed wheel is: on machines that set ``PYTHONDONTWRITEBYTECODE=1``
a source tree otherwise recompiles its modules on every run. ``--edited`` adds an OpenMP row: a
warm run after a comment was appended to one of the program's files.

Usage: ``python scripts/bench_speed.py [--runs 3] [--markdown] [--only omp,cuda,nvcc,start]
[--baseline DIR]``
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

#: (``-P``: the working directory is not put first on ``sys.path``; a run from the repository's
#: root otherwise imported this tree's s2s for ``--baseline``'s "before" rows too)
S2S = [sys.executable, "-P", "-m", "s2s"]
CLANG = shutil.which("clang-16") or shutil.which("clang")
NVCC = shutil.which("nvcc")
NVCC_SAMPLE = REPO / "samples" / "cuda" / "cholesky_tiles" / "cholesky_tiles.cu"


@dataclass
class Timing:
    wall: float
    cpu: float
    peak_mb: float
    #: SHA-256 of what the command printed (cold, warm and -j runs must print the same)
    output: str = ""


#: (command, outputs seen): every run of one command must print the same bytes
OUTPUTS: dict[str, set[str]] = {}


def timed(argv: list[str], env: dict | None = None, cwd: str | None = None) -> Timing:
    """One run of ``argv`` under /usr/bin/time; its exit status is not checked (``s2s omp
    --diff`` exits 1 when it would change files), but a command that could not start is."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        done = subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%e %U %S %M", *argv],
                              capture_output=True, env=env, cwd=cwd)
        fields = out.read().split()[-4:]
    if done.returncode > 2 or len(fields) < 4:
        raise RuntimeError(f"{argv[:4]} failed ({done.returncode}): {done.stderr[-500:]!r}")
    wall, user, system, peak_kb = map(float, fields)
    digest = hashlib.sha256(done.stdout).hexdigest()
    return Timing(wall, user + system, peak_kb / 1024, digest)


def median(runs: list[Timing]) -> Timing:
    return Timing(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
                  statistics.median(r.peak_mb for r in runs))


#: the source tree whose s2s runs (None: this one; ``--baseline``: another, on PYTHONPATH)
TREE: list[str | None] = [None]


def s2s_env(cache: str | None) -> dict:
    """The environment of an s2s run: its fact cache in ``cache`` (None: off); the tree
    measured first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = TREE[0] if TREE[0] is not None else str(REPO)
    env.pop("S2S_NO_CACHE", None)
    if cache is None:
        env["S2S_NO_CACHE"] = "1"
    else:
        env["XDG_CACHE_HOME"] = cache
    return env


def cold_and_warm(argv: list[str], runs: int, cwd: str | None = None,
                  jobs: list[str] = (), warm_too: bool = True) -> tuple[Timing, Timing | None]:
    """(cold, warm) medians: each cold run in a new empty cache folder, each warm run in the
    folder of the cold run before it."""
    cold, warm = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="s2s-bench-cache-") as cache:
            cold.append(timed([*argv, *jobs], s2s_env(cache), cwd))
            if warm_too:
                warm.append(timed([*argv, *jobs], s2s_env(cache), cwd))
    OUTPUTS.setdefault(" ".join(argv[len(S2S):]), set()).update(t.output for t in cold + warm)
    return median(cold), median(warm) if warm else None


@dataclass
class Row:
    figure: str
    s2s: str
    reference: str
    ratio: float
    goal: str

    def cells(self) -> list[str]:
        return [self.figure, self.s2s, self.reference, f"{self.ratio:.2f}x", self.goal]


def _s(t: Timing, cpu: bool = True) -> str:
    return f"{t.cpu:.2f} s CPU ({t.wall:.2f} s wall)" if cpu else f"{t.wall:.2f} s wall"


def omp_rows(work: Path, runs: int) -> list[Row]:
    from bench_omp import scale_program

    folder = work / "omp50k"
    folder.mkdir()
    for name, text in scale_program(50000, 10, 2000).items():
        (folder / name).write_text(text)
    files = sorted(p.name for p in folder.iterdir() if p.suffix == ".c")
    lines = sum(len((folder / n).read_text().splitlines()) for n in os.listdir(folder))
    clang = median([timed([CLANG, "-fsyntax-only", "-fopenmp", *files], cwd=str(folder))
                    for _ in range(runs)])
    argv = [*S2S, "omp", "--diff", *files]
    ref = f"clang -fsyntax-only -fopenmp: {_s(clang)}"
    trees = [None, BASELINE[0]] if BASELINE[0] else [None]
    seen: dict = {tree: ([], [], [], []) for tree in trees}
    for _ in range(runs):               # the trees' runs alternate: the same load on both
        for tree in trees:
            TREE[0] = tree
            try:
                cold, warm = cold_and_warm(argv, 1, str(folder), ["-j", "1"])
                cold2, _ = cold_and_warm(argv, 1, str(folder), ["-j", "2"], warm_too=False)
                edited = edited_run(argv, folder / files[0]) if EDITED[0] else cold
            finally:
                TREE[0] = None
            for kept, one in zip(seen[tree], (cold, warm, cold2, edited), strict=True):
                kept.append(one)
    rows = []
    for tree in trees:
        cold, warm, cold2, edited = (median(kept) for kept in seen[tree])
        what = f"{lines:,}-line OpenMP program, {len(files)} files: s2s omp" + \
            (f" (baseline {os.path.basename(tree)})" if tree else "")
        rows += [Row(f"{what}, cold cache", _s(cold), ref, cold.cpu / clang.cpu, "<= 3x (CPU)"),
                 Row(f"{what}, warm cache", _s(warm), ref, warm.cpu / clang.cpu, "<= 1x (CPU)"),
                 Row(f"{what}, cold, -j 2 vs -j 1 (speed-up)", _s(cold2, False),
                     f"-j 1: {_s(cold, False)}", cold.wall / cold2.wall, ">= 1.7x (wall)")]
        if EDITED[0]:
            rows.append(Row(f"{what}, warm cache, then {files[0]} edited (a comment appended)",
                            _s(edited), ref, edited.cpu / clang.cpu, "(none)"))
    return rows


def edited_run(argv: list[str], target: Path) -> Timing:
    """A run after one file of a warm program was edited (a comment appended): what a
    developer's next run costs. The cache is filled by a run first; the file is restored."""
    original = target.read_bytes()
    with tempfile.TemporaryDirectory(prefix="s2s-bench-cache-") as cache:
        timed([*argv, "-j", "1"], s2s_env(cache), str(target.parent))
        try:
            target.write_bytes(original + b"\n/* edited */\n")
            return timed([*argv, "-j", "1"], s2s_env(cache), str(target.parent))
        finally:
            target.write_bytes(original)


def clang_cuda_args(path: str) -> list[str]:
    """clang-16's command line for the host-side parse s2s makes of ``path`` (its headers)."""
    from s2s.frontend.core.parse import clang_args
    from s2s.frontend.core.toolchain import default_toolchain

    return [CLANG, "-fsyntax-only", *clang_args("cuda", default_toolchain()), path]


#: the parse s2s makes of a file, alone (``python -P -c``)
LIBCLANG_PARSE = ("import sys; from s2s.frontend.core.parse import parse_file; "
                  "sys.exit(1 if parse_file(sys.argv[1]).has_errors else 0)")


def cuda_rows(work: Path, runs: int) -> list[Row]:
    from gen_big_cu import generate_cuda

    path = work / "big.cu"
    lines = 1000
    while True:
        text = generate_cuda(lines)
        if len(text.encode()) >= 1_000_000:
            break
        lines = int(lines * 1_000_000 / max(len(text.encode()), 1)) + 200
    path.write_text(text)
    clang = median([timed(clang_cuda_args(str(path))) for _ in range(runs)])
    ref = f"clang parse: {_s(clang)}, {clang.peak_mb:.0f} MB"
    # clang-16 stops at a fatal error in its CUDA wrapper header (CUDA 13 has no
    # texture_fetch_functions.h) before the file: the parse s2s makes (libclang 22, the same
    # headers, no error) in a process of its own is the reference that reads the file
    parse = median([timed([*S2S[:-2], "-c", LIBCLANG_PARSE, str(path)], s2s_env(None))
                    for _ in range(runs)])
    parse_ref = f"libclang parse: {_s(parse)}, {parse.peak_mb:.0f} MB"
    rows = []
    for form in INSPECT_FORMATS:
        cold, warm = cold_and_warm([*S2S, "inspect", "--format", form, str(path)], runs)
        what = f"1 MB CUDA file ({len(text.encode()) / 1e6:.2f} MB): s2s inspect --format {form}"
        rows += [Row(f"{what}, cold cache, against libclang's parse",
                     f"{_s(cold)}, {cold.peak_mb:.0f} MB", parse_ref, cold.cpu / parse.cpu,
                     "<= 5x (CPU)"),
                 Row(f"{what}, cold cache", f"{_s(cold)}, {cold.peak_mb:.0f} MB", ref,
                     cold.cpu / clang.cpu, "<= 5x (CPU)"),
                 Row(f"{what}, cold cache, peak memory", f"{cold.peak_mb:.0f} MB", ref,
                     cold.peak_mb / clang.peak_mb, "<= 300 MB"),
                 Row(f"{what}, warm cache", f"{_s(warm)}, {warm.peak_mb:.0f} MB", ref,
                     warm.cpu / clang.cpu, "(none)")]
    return rows


def nvcc_rows(work: Path, runs: int) -> list[Row]:
    if NVCC is None:
        return []
    source = work / NVCC_SAMPLE.name
    shutil.copy(NVCC_SAMPLE, source)
    lines = len(source.read_text().splitlines())
    plain = median([timed([NVCC, "-c", source.name, "-o", "plain.o"], cwd=str(work))
                    for _ in range(runs)])
    argv = [*S2S, "nvcc", "--s2s-passes=transfers,fuse,mgpu", "-c", source.name, "-o", "s2s.o"]
    cold, warm = cold_and_warm(argv, runs, str(work))
    what = f"s2s nvcc --s2s-passes=transfers,fuse,mgpu -c, {lines}-line program"
    ref = f"nvcc -c: {_s(plain)}"
    return [Row(f"{what}, cold cache", _s(cold), ref, cold.cpu / plain.cpu, "<= 2x"),
            Row(f"{what}, warm cache", _s(warm), ref, warm.cpu / plain.cpu, "<= 1.2x")]


def start_rows(work: Path, runs: int) -> list[Row]:
    from gen_big_cu import generate_openmp

    version_argv, how = version_command()
    version = median([timed(version_argv, s2s_env(None)) for _ in range(runs)])
    plain = work / "no_target.c"
    plain.write_text(without_directives(generate_openmp(1000)))
    clang = median([timed([CLANG, "-fsyntax-only", "-fopenmp", str(plain)])
                    for _ in range(runs)])
    cold, warm = cold_and_warm([*S2S, "omp", "--diff", str(plain)], runs)
    ref = f"clang -fsyntax-only -fopenmp: {_s(clang)}"
    return [Row(f"s2s --version ({how})", _s(version), "(goal 0.3 s wall)", version.wall / 0.3,
                "< 0.3 s wall"),
            Row("s2s omp, 1,000-line file without a target region, cold cache",
                _s(cold), ref, cold.cpu / clang.cpu, "< 1.5x"),
            Row("s2s omp, 1,000-line file without a target region, warm cache",
                _s(warm), ref, warm.cpu / clang.cpu, "< 1.5x")]


def version_command() -> tuple[list[str], str]:
    """How ``s2s --version`` runs, the same for every tree measured (its tree on PYTHONPATH,
    which comes before the installed package): the console script beside this Python (what a
    user runs; it answers before importing the tool) where every tree has its entry module,
    else ``python -m s2s``; and the words that say which. A pair run two ways measured the
    way, not the change."""
    entry = shutil.which("s2s", path=str(Path(sys.executable).parent))
    trees = [REPO] + ([Path(BASELINE[0])] if BASELINE[0] else [])
    if entry and all((tree / "s2s" / "cli" / "entry.py").is_file() for tree in trees):
        return [entry, "--version"], "console script"
    return [*S2S, "--version"], "python -m s2s"


#: ``--edited``: also time a warm run after one file was edited
EDITED: list[bool] = [False]
#: ``--baseline``: the other tree measured beside this one
BASELINE: list[str | None] = [None]


def without_directives(text: str) -> str:
    """``text`` without its OpenMP directives, their continuation lines included (a clause
    left on a line of its own is no C: the file would fail to parse, not be outlined)."""
    kept, continued = [], False
    for line in text.splitlines():
        if continued or "#pragma omp" in line:
            continued = line.rstrip().endswith("\\")
            continue
        kept.append(line)
    return "\n".join(kept) + "\n"


def byte_compile(tree: Path) -> None:
    """Write the bytecode of s2s and its runtime in ``tree``, as a wheel's install does."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "s2s"),
                    str(tree / "runtime")], capture_output=True, check=False)


#: the printers of the 1 MB file's tables: text (rich tables, most of a warm run) and JSON
INSPECT_FORMATS = ["text", "json"]
SECTIONS = {"omp": omp_rows, "cuda": cuda_rows, "nvcc": nvcc_rows, "start": start_rows}


def table(rows: list[Row]) -> str:
    head = ["figure", "s2s", "clang / nvcc, same run", "ratio", "issue's goal"]
    out = ["| " + " | ".join(head) + " |", "|---|---|---|---:|---|"]
    out += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per number (median)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help="comma-separated sections: " + ", ".join(SECTIONS))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--inspect-formats", default="text,json",
                        help="the 1 MB file's inspect output formats to time (text, json)")
    parser.add_argument("--baseline", default=None,
                        help="a source tree of s2s to measure beside this one, row by row")
    parser.add_argument("--edited", action="store_true",
                        help="OpenMP rows: also a warm run after one file was edited")
    args = parser.parse_args(argv)
    INSPECT_FORMATS[:] = args.inspect_formats.split(",")
    BASELINE[0] = os.path.abspath(args.baseline) if args.baseline else None
    EDITED[0] = args.edited
    if CLANG is None:
        print("clang-16 not found: no reference to compare with", file=sys.stderr)
        return 2
    from bench_frontend import machine_info

    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rows: list[Row] = []
    trees = [("", None)]
    if args.baseline:
        trees = [("before: ", str(Path(args.baseline).resolve())), ("after: ", None)]
    for _, tree in trees:
        byte_compile(Path(tree) if tree else REPO)
    with tempfile.TemporaryDirectory(prefix="s2s-bench-speed-") as work:
        for name in args.only.split(","):
            if name == "omp" and args.baseline:     # (its runs alternate between the trees)
                section = Path(work) / name
                section.mkdir()
                rows += omp_rows(section, args.runs)
                print("(omp done)", file=sys.stderr)
                continue
            for label, tree in trees:
                TREE[0] = tree
                section = Path(work) / name     # (the same paths: outputs compared too)
                shutil.rmtree(section, ignore_errors=True)
                section.mkdir()
                rows += [replace(row, figure=label + row.figure)
                         for row in SECTIONS[name](section, args.runs)]
                print(f"({label}{name} done)", file=sys.stderr)
            TREE[0] = None
    info = machine_info()
    info["load average (end)"] = info.pop("load average")
    print(f"Run {started}, median of {args.runs} runs each; "
          + "; ".join(f"{k}: {v}" for k, v in info.items()))
    print(table(rows) if args.markdown else "\n".join(
        f"{r.figure}\n    s2s {r.s2s} | {r.reference} | {r.ratio:.2f}x (goal {r.goal})"
        for r in rows))
    differ = [command for command, seen in OUTPUTS.items() if len(seen) > 1]
    print(f"\nOutputs of every s2s command the same bytes cold, warm and with -j 2"
          f"{' (and before and after)' if args.baseline else ''}: "
          f"{'no: ' + '; '.join(differ) if differ else 'yes'} ({len(OUTPUTS)} commands)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
