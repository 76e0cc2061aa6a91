#!/usr/bin/env python3
"""Compare the data movement of naive, s2s-rewritten and expert OpenMP offload samples.

For every ``samples/openmp/*/`` directory with a ``sample.toml``, this builds and runs
(clang-16 host offload, see ``s2s.verify.omp_harness``):

* naive  - the sample's ``sources`` as they are;
* s2s    - the same after ``s2s omp -o DIR``;
* expert - the hand-mapped version named by the ``expert`` key of sample.toml (a file that
  replaces the first source, or a list of files replacing all of them), when there is one;

and prints per sample the copies and bytes of each, whether the s2s and expert outputs match
the naive one (at the sample's ``tolerance``), unmapped pointers, and the s2s run time
(median of 3 wall times of ``s2s omp --diff``). Then the geometric mean of s2s bytes / naive
bytes (and expert / naive, s2s / expert). A version that cannot be measured shows ``n/a`` and
the reason is listed under the table; one bad sample never stops the others.

Usage::

    python scripts/bench_omp.py [NAMES...] [--markdown] [--random N] [--seed-start S]
                                [--jobs J] [--s2s CMD] [--keep DIR] [--samples-dir DIR]

``--random N`` also checks ``s2s omp`` on N random programs of ``s2s.verify.omp_random``
(seeds S .. S+N-1) and summarizes mismatches, unmapped pointers and bytes.

Exit status: 0 (also when something is n/a), 1 when an s2s output differs from the naive
one or an s2s-rewritten program uses an unmapped pointer, 2 when clang-16 host offload is
not usable.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples" / "openmp"

try:
    from s2s.verify import omp_harness as harness
    from s2s.verify import omp_random
except ImportError:  # a Python without s2s installed: use this checkout
    sys.path.insert(0, str(REPO_ROOT))
    from s2s.verify import omp_harness as harness
    from s2s.verify import omp_random


@dataclass
class Version:
    """One build of a sample: its run, or why there is none."""

    result: harness.RunResult | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.result is not None and self.problem is None


@dataclass
class Row:
    name: str
    naive: Version = field(default_factory=Version)
    s2s: Version = field(default_factory=Version)
    expert: Version = field(default_factory=Version)
    s2s_match: str = "n/a"
    expert_match: str = "n/a"
    s2s_seconds: float | None = None
    s2s_time_problem: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Sample:
    name: str
    directory: Path
    meta: dict

    @property
    def sources(self) -> list[str]:
        return [str(s) for s in self.meta.get("sources", [])]

    @property
    def args(self) -> list[str]:
        return [str(a) for a in self.meta.get("args", [])]

    @property
    def lang(self) -> str | None:
        return self.meta.get("lang")

    @property
    def tolerance(self) -> float:
        return float(self.meta.get("tolerance", 0.0))

    def expert_sources(self) -> list[str] | None:
        expert = self.meta.get("expert")
        if not expert:
            return None
        if isinstance(expert, list):
            return [str(e) for e in expert]
        return [str(expert), *self.sources[1:]]


def discover(names: list[str], samples_dir: Path = SAMPLES_DIR) -> list[Sample]:
    samples = []
    for toml in sorted(samples_dir.glob("*/sample.toml")):
        try:
            with open(toml, "rb") as handle:
                meta = tomllib.load(handle)
        except (OSError, tomllib.TOMLDecodeError) as error:
            meta = {"_error": str(error)}
        samples.append(Sample(toml.parent.name, toml.parent, meta))
    if names:
        known = {s.name for s in samples}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise SystemExit(f"unknown sample(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        samples = [s for s in samples if s.name in names]
    return samples


# --------------------------------------------------------------------------
# measuring one sample
# --------------------------------------------------------------------------


def _short(text: str, limit: int = 300) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip() and "Libomptarget" not in line]
    joined = " | ".join(lines[-6:]) or "(no output)"
    return joined if len(joined) <= limit else joined[: limit - 3] + "..."


def build_and_run(sample: Sample, sources: list[Path], exe: Path) -> Version:
    try:
        # the sample's own directory on the include path: its project headers (the -o copy of
        # a rewrite holds only the files s2s processed)
        harness.build(sources, exe, sample.lang, ("-I", str(sample.directory)))
    except harness.BuildError as error:
        return Version(problem=f"does not build: {_short(error.stderr)}")
    except (OSError, ValueError) as error:
        return Version(problem=f"cannot build: {error}")
    try:
        result = harness.run(exe, sample.args, timeout=300, cwd=sample.directory)
    except subprocess.TimeoutExpired:
        return Version(problem="timed out")
    except OSError as error:
        return Version(problem=f"cannot run: {error}")
    if result.returncode != 0:
        return Version(result, f"exited {result.returncode}: {_short(result.stderr)}")
    return Version(result)


def _s2s(cmd: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*cmd, "omp", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _s2s_failure(proc: subprocess.CompletedProcess) -> str:
    if proc.returncode == 2 and "not available" in proc.stderr:
        return "s2s omp not available"
    return f"s2s omp exited {proc.returncode}: {_short(proc.stderr)}"


def measure_sample(sample: Sample, s2s_cmd: list[str], outdir: Path) -> Row:
    """Build and run the naive, s2s and expert versions of one sample (never raises)."""
    row = Row(sample.name)
    try:
        _measure(sample, s2s_cmd, outdir / sample.name, row)
    except Exception as error:  # noqa: BLE001 - one broken sample must not stop the bench
        row.notes.append(f"internal error: {type(error).__name__}: {error}")
    return row


def _measure(sample: Sample, s2s_cmd: list[str], work: Path, row: Row) -> None:
    work.mkdir(parents=True, exist_ok=True)
    if "_error" in sample.meta or not sample.sources:
        row.naive.problem = row.s2s.problem = row.expert.problem = (
            f"bad sample.toml: {sample.meta.get('_error', 'no sources')}")
        return
    sources = [sample.directory / s for s in sample.sources]
    row.naive = build_and_run(sample, sources, work / "naive")
    try:
        database = ["-p", str(sample.meta["build_dir"])] if sample.meta.get("build_dir") else []
        proc = _s2s(s2s_cmd, ["-o", str(work / "s2s_out"), *database, *sample.sources],
                    sample.directory)
        if proc.returncode != 0:
            row.s2s.problem = _s2s_failure(proc)
        else:
            rewritten = [work / "s2s_out" / s for s in sample.sources]
            missing = [str(p) for p in rewritten if not p.is_file()]
            row.s2s = (Version(problem=f"s2s wrote no {', '.join(missing)}") if missing
                       else build_and_run(sample, rewritten, work / "s2s"))
    except (OSError, subprocess.TimeoutExpired) as error:
        row.s2s.problem = f"s2s could not run: {error}"
    expert = sample.expert_sources()
    if expert is None:
        row.expert.problem = "no expert version"
    else:
        files = [sample.directory / e for e in expert]
        missing = [str(p.name) for p in files if not p.is_file()]
        row.expert = (Version(problem=f"expert file {', '.join(missing)} missing") if missing
                      else build_and_run(sample, files, work / "expert"))
    row.s2s_match = _match(row.naive, row.s2s, sample.tolerance)
    row.expert_match = _match(row.naive, row.expert, sample.tolerance)


def _match(naive: Version, other: Version, tolerance: float) -> str:
    if not (naive.ok and other.ok):
        return "n/a"
    difference = harness.compare_outputs(naive.result.stdout, other.result.stdout, tolerance)
    return "yes" if difference is None else f"NO ({difference})"


def time_s2s(sample: Sample, s2s_cmd: list[str], runs: int, row: Row) -> None:
    """Median wall time of ``s2s omp --diff`` over ``runs`` runs."""
    if "_error" in sample.meta or not sample.sources:
        row.s2s_time_problem = "bad sample.toml"
        return
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        try:
            proc = _s2s(s2s_cmd, ["--diff", *sample.sources], sample.directory)
        except (OSError, subprocess.TimeoutExpired) as error:
            row.s2s_time_problem = f"s2s could not run: {error}"
            return
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            row.s2s_time_problem = _s2s_failure(proc)
            return
    row.s2s_seconds = statistics.median(times)


# --------------------------------------------------------------------------
# reporting
# --------------------------------------------------------------------------


def _count(version: Version) -> str:
    return str(version.result.copies.total_count) if version.ok else "n/a"


def _bytes(version: Version) -> str:
    return f"{version.result.copies.total_bytes:,}" if version.ok else "n/a"


def _unmapped(row: Row) -> str:
    parts = []
    for label, version in (("naive", row.naive), ("s2s", row.s2s), ("expert", row.expert)):
        if version.result is not None and version.result.unmapped:
            names = sorted({u.split(" ")[0] for u in version.result.unmapped})
            parts.append(f"{label}: {','.join(names)}")
    return "; ".join(parts) or "none"


HEADERS = ["sample", "naive copies", "naive bytes", "s2s copies", "s2s bytes", "expert copies",
           "expert bytes", "s2s out", "expert out", "unmapped", "s2s time"]
RIGHT = {1, 2, 3, 4, 5, 6, 10}


def table_rows(rows: list[Row]) -> list[list[str]]:
    out = []
    for row in rows:
        seconds = f"{row.s2s_seconds:.2f} s" if row.s2s_seconds is not None else "n/a"
        out.append([row.name, _count(row.naive), _bytes(row.naive), _count(row.s2s), _bytes(row.s2s),
                    _count(row.expert), _bytes(row.expert), row.s2s_match.split(" ")[0],
                    row.expert_match.split(" ")[0], _unmapped(row), seconds])
    return out


def render(cells: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(HEADERS) + " |",
                 "| " + " | ".join("---:" if i in RIGHT else "---" for i in range(len(HEADERS))) + " |"]
        lines += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(lines)
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(HEADERS)]

    def fmt(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if i in RIGHT else v.ljust(w)
                         for i, (v, w) in enumerate(zip(values, widths, strict=True))).rstrip()

    return "\n".join([fmt(HEADERS), fmt(["-" * w for w in widths]), *(fmt(c) for c in cells)])


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def ratio_line(rows: list[Row], top: str, bottom: str) -> str:
    pairs = [(getattr(r, top), getattr(r, bottom)) for r in rows]
    ratios = [a.result.copies.total_bytes / b.result.copies.total_bytes for a, b in pairs
              if a.ok and b.ok and b.result.copies.total_bytes > 0]
    zero = sum(1 for a, b in pairs if a.ok and b.ok and a.result.copies.total_bytes == 0)
    value = geomean(ratios)
    if value is None:
        return f"geometric mean of {top} bytes / {bottom} bytes: n/a (no sample has both)"
    extra = f", {zero} with 0 {top} bytes left out" if zero else ""
    return (f"geometric mean of {top} bytes / {bottom} bytes: {value:.4f} "
            f"over {len(ratios)} samples{extra}")


def notes(rows: list[Row]) -> list[str]:
    lines = []
    for row in rows:
        for label, version in (("naive", row.naive), ("s2s", row.s2s), ("expert", row.expert)):
            if version.problem:
                lines.append(f"{row.name}: {label}: {version.problem}")
            if version.result is not None and version.result.unmapped:
                lines.append(f"{row.name}: {label}: unmapped {', '.join(version.result.unmapped)}")
        for label, match in (("s2s", row.s2s_match), ("expert", row.expert_match)):
            if match.startswith("NO"):
                lines.append(f"{row.name}: {label} output differs from naive: {match[4:-1]}")
        if row.s2s_time_problem and not row.s2s.problem:
            lines.append(f"{row.name}: s2s timing: {row.s2s_time_problem}")
        lines += [f"{row.name}: {note}" for note in row.notes]
    return lines


# --------------------------------------------------------------------------
# random programs
# --------------------------------------------------------------------------


def run_random(count: int, start: int, s2s_cmd: list[str], workdir: Path, jobs: int,
               keep: bool) -> tuple[str, bool]:
    """Check s2s omp on random programs; returns (summary text, any s2s failure)."""
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda seed: omp_random.check(seed, s2s_cmd, workdir),
                                range(start, start + count)))
    wall = time.perf_counter() - t0
    missing = [r for r in results if not r.available]
    if len(missing) == len(results):
        return (f"random programs: s2s omp not available ({_short(missing[0].s2s_stderr)})"
                if results else "random programs: none"), False
    compared = [r for r in results if r.before and r.after]
    mismatch = [r for r in results if r.output_match is False]
    unmapped = [r for r in results if r.unmapped]
    failed = [r for r in results if r.available and r.error is not None]
    ratio = geomean([r.after.total_bytes / r.before.total_bytes for r in compared if r.before.total_bytes])
    before = geomean([r.before.total_bytes for r in compared])
    after = geomean([r.after.total_bytes for r in compared])
    lines = [f"random programs (seeds {start}..{start + count - 1}): {sum(r.ok for r in results)}/"
             f"{len(results)} ok, {len(mismatch)} output mismatches, {len(unmapped)} with unmapped "
             f"pointers, {len(failed)} other failures, {len(missing)} s2s not available; "
             f"{wall:.0f} s wall"]
    if ratio is not None:
        lines.append(f"  bytes geomean {before:,.0f} -> {after:,.0f}, after/before {ratio:.4f} "
                     f"over {len(compared)} programs")
    for r in [r for r in results if r.available and not r.ok][:20]:
        where = f"  [{r.source}]" if keep else ""
        lines.append(f"  {r.describe()[:400]}{where}")
    if not keep and any(r.available and not r.ok for r in results):
        lines.append("  (regenerate a program with omp_random.generate(seed), or keep them with --keep DIR)")
    return "\n".join(lines), bool(mismatch or unmapped or failed)


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", metavar="NAMES", help="samples to measure (default: all)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--random", type=int, default=0, metavar="N", help="also check N random programs")
    ap.add_argument("--seed-start", type=int, default=0, metavar="S", help="first random seed (0)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel builds")
    ap.add_argument("--s2s", metavar="CMD", help="command that runs s2s (default: the s2s next to "
                    "this Python, else python -m s2s)")
    ap.add_argument("--timing-runs", type=int, default=3, metavar="K",
                    help="s2s time = median of K runs of s2s omp --diff (default 3; 0 skips)")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep builds and rewrites in DIR")
    ap.add_argument("--samples-dir", type=Path, default=SAMPLES_DIR, metavar="DIR",
                    help="where the samples are (default samples/openmp)")
    args = ap.parse_args(argv)

    problem = harness.toolchain_problem()
    if problem:
        print(f"error: clang-16 host offload is not usable: {problem}", file=sys.stderr)
        return 2
    s2s_cmd = shlex.split(args.s2s) if args.s2s else omp_random.default_s2s_command()
    samples = discover(args.names, args.samples_dir)
    tmp = None
    if args.keep:
        workdir = args.keep.resolve()
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="bench_omp_")
        workdir = Path(tmp.name)
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            rows = list(pool.map(lambda s: measure_sample(s, s2s_cmd, workdir / "samples"), samples))
        # timed one at a time, after the builds, so that they do not compete for the CPU
        for sample, row in zip(samples, rows, strict=True):
            if args.timing_runs > 0 and row.s2s.problem != "s2s omp not available":
                time_s2s(sample, s2s_cmd, args.timing_runs, row)
            elif row.s2s.problem:
                row.s2s_time_problem = row.s2s.problem
        print(render(table_rows(rows), args.markdown))
        print()
        for top, bottom in (("s2s", "naive"), ("expert", "naive"), ("s2s", "expert")):
            print(ratio_line(rows, top, bottom))
        extra = notes(rows)
        if extra:
            print("\nnotes:")
            for line in extra:
                print(f"  {line}")
        failed = any(r.s2s_match.startswith("NO") or (r.s2s.result and r.s2s.result.unmapped)
                     for r in rows)
        if args.random > 0:
            print()
            text, random_failed = run_random(args.random, args.seed_start, s2s_cmd,
                                             workdir / "random", max(1, args.jobs), bool(args.keep))
            print(text)
            failed = failed or random_failed
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
