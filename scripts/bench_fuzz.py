#!/usr/bin/env python3
"""Fuzz every s2s subcommand on mutated samples (``s2s.verify.fuzz``) and summarize.

Each seed is one reproducible case: a sample file, one to three mutations (deleted or
duplicated tokens, unbalanced brackets, random / non-UTF-8 / NUL bytes, deep nesting, huge
lines, truncation, swapped lines, CR and CRLF, preprocessor damage, damaged ``#pragma omp``
lines and ``<<<...>>>`` launches), and runs of ``inspect``, ``omp``, ``transfers``, ``fuse``
and ``mgpu`` (``--diff``, ``--check``, ``--in-place`` on a copy and again, ``-o``; ``verify`` on
a small fraction) with the invariants of :mod:`s2s.verify.fuzz` checked after each run.

Usage::

    python scripts/bench_fuzz.py --cases 1000 [--start 0 | --fresh] [--jobs 2] [--markdown]
    python scripts/bench_fuzz.py --seeds 17-42 [--minimise] [--keep DIR] [--json FILE]
    python scripts/bench_fuzz.py --seeds 123 --show      # print the mutant of a seed

Prints a table (cases, time, runs, mutations used, failures by kind: new and known defects)
and the seeds of every failure grouped by signature (kind | subcommand | detail).
``--minimise`` shrinks the first mutant of each new signature and prints it.
Exit status: 0 when no new failure was found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
try:
    from s2s.verify import fuzz
except ImportError:  # a Python without s2s installed: use this checkout
    sys.path.insert(0, str(REPO_ROOT))
    from s2s.verify import fuzz


def parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part[1:]:
            low, high = part.split("-", 1) if not part.startswith("-") else part.rsplit("-", 1)
            seeds.extend(range(int(low), int(high) + 1))
        elif part:
            seeds.append(int(part))
    return seeds


def machine() -> str:
    model = "?"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} x {model}, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=None, help="number of cases (seeds from "
                        "--start)")
    parser.add_argument("--start", type=int, default=0, help="first seed with --cases")
    parser.add_argument("--fresh", action="store_true", help="with --cases: seeds no run has "
                        "tried, from the commit hash (fuzz.commit_seed_start); printed first")
    parser.add_argument("--seeds", default=None, help="seeds: A-B (inclusive), or a list A,B,C")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=fuzz.DEFAULT_CASE_TIMEOUT,
                        help="CPU seconds per case (its worker and children) before it counts as a "
                        "hang; a case with no CPU progress for a while past it is one too")
    parser.add_argument("--verify-rate", type=float, default=fuzz.DEFAULT_VERIFY_RATE)
    parser.add_argument("--subprocess-rate", type=float, default=fuzz.DEFAULT_SUBPROCESS_RATE)
    parser.add_argument("--toolkit-rate", type=float, default=fuzz.DEFAULT_TOOLKIT_RATE)
    parser.add_argument("--nvcc-rate", type=float, default=fuzz.DEFAULT_NVCC_RATE)
    parser.add_argument("--minimise", action="store_true",
                        help="shrink the first mutant of each new failure signature")
    parser.add_argument("--max-probes", type=int, default=300)
    parser.add_argument("--keep", metavar="DIR", help="keep the directories of failing cases")
    parser.add_argument("--json", metavar="FILE", help="write every case's result as JSON")
    parser.add_argument("--show", action="store_true",
                        help="print the case (and mutant bytes) of each seed; run nothing")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args(argv)

    if args.seeds is not None:
        seeds = parse_seeds(args.seeds)
    else:
        first = args.start
        if args.fresh:
            first, commit = fuzz.commit_seed_start()
            print(f"fresh seeds {first}-{first + (args.cases or 100) - 1} from commit {commit} "
                  f"(replay: --seeds {first}-{first + (args.cases or 100) - 1})",
                  file=sys.stderr, flush=True)
        seeds = list(range(first, first + (args.cases or 100)))
    options = fuzz.CaseOptions(verify_rate=args.verify_rate, subprocess_rate=args.subprocess_rate,
                               toolkit_rate=args.toolkit_rate, nvcc_rate=args.nvcc_rate)
    config = fuzz.FuzzConfig(case_options=options, case_timeout=args.timeout, keep=args.keep)

    if args.show:
        for seed in seeds:
            case = fuzz.make_case(seed, options)
            print(case.describe())
            sys.stdout.buffer.write(case.mutant.data[:4000])
            print("\n" + "-" * 60)
        return 0

    start = time.perf_counter()
    results = []
    try:
        for number, result in enumerate(fuzz.fuzz(seeds, config, jobs=args.jobs), 1):
            results.append(result)
            for failure in result.failures:
                tag = f"known: {failure.known}" if failure.known else "NEW"
                print(f"seed {result.seed} [{tag}] {failure.kind} in `{failure.step}`: "
                      f"{failure.detail[:300]}  ({result.sample}: {'; '.join(result.mutations)})",
                      file=sys.stderr, flush=True)
            if number % 10 == 0:
                print(f"... {number}/{len(seeds)} cases, {time.perf_counter() - start:.0f} s, "
                      f"{sum(bool(r.failures) for r in results)} with failures",
                      file=sys.stderr, flush=True)
    except KeyboardInterrupt:  # SIGINT: the table of the cases finished so far
        print(f"interrupted after {len(results)} of {len(seeds)} cases", file=sys.stderr,
              flush=True)
        seeds = sorted(r.seed for r in results) or seeds
    wall = time.perf_counter() - start
    results.sort(key=lambda r: r.seed)

    if args.json:
        with open(args.json, "w") as handle:
            json.dump([r.to_json() for r in results], handle, indent=1)

    report(results, seeds, wall, args)
    new = [r for r in results if r.new_failures]
    if args.minimise and new:
        minimise_all(new, config, args.max_probes)
    return 1 if new else 0


def report(results, seeds, wall: float, args) -> None:
    md = args.markdown
    runs = sum(r.runs for r in results)
    rows = [
        ("date", datetime.date.today().isoformat()),
        ("machine", machine()),
        ("seeds", f"{min(seeds)}-{max(seeds)}" if seeds == list(range(min(seeds), max(seeds) + 1))
         else ",".join(map(str, seeds[:20])) + ("..." if len(seeds) > 20 else "")),
        ("cases", str(len(results))),
        ("workers", str(args.jobs)),
        ("wall time", f"{wall:.1f} s ({len(results) / wall:.2f} cases/s)"),
        ("s2s runs", f"{runs} ({runs / wall:.1f}/s)"),
        ("cases run as subprocesses", str(sum(r.subprocess for r in results))),
        ("cases with verify", str(sum(r.verify for r in results))),
        ("mutants that load without errors", str(sum(bool(r.parsed) for r in results))),
        ("slowest case", _slowest(results)),
        ("cases with a new failure", str(sum(bool(r.new_failures) for r in results))),
        ("cases with only known-defect failures",
         str(sum(bool(r.failures) and not r.new_failures for r in results))),
    ]
    _table(("", "value"), rows, md)

    used = collections.Counter()
    for r in results:
        for step in r.mutations:
            used[step.split(":", 1)[0]] += 1
    print()
    _table(("mutation", "uses"), sorted(used.items(), key=lambda kv: -kv[1]), md)

    kinds: dict[str, list[int]] = collections.defaultdict(list)
    signatures: dict[str, list[int]] = collections.defaultdict(list)
    for r in results:
        for f in r.failures:
            label = f"{f.kind} (known: {f.known.split(' (')[0]})" if f.known else f.kind
            if r.seed not in kinds[label]:
                kinds[label].append(r.seed)
            key = ("[known] " if f.known else "") + f.signature()
            if r.seed not in signatures[key]:
                signatures[key].append(r.seed)
    notes = [(r.seed, note) for r in results for note in r.notes]
    if notes:
        print()
        _table(("seed", "note (not a failure)"), [(str(s), n[:200]) for s, n in notes], md)
    steps: dict[str, list[float]] = collections.defaultdict(list)
    for r in results:
        for step, seconds in r.timings:
            steps[step.split(" (")[0]].append(seconds)
    print()
    _table(("step", "runs", "mean s", "max s"),
           [(k, str(len(v)), f"{sum(v) / len(v):.2f}", f"{max(v):.2f}")
            for k, v in sorted(steps.items())], md)
    print()
    if not kinds:
        print("failures: none")
        return
    _table(("failure kind", "cases", "seeds"),
           [(k, str(len(v)), _seeds(v)) for k, v in sorted(kinds.items())], md)
    print()
    _table(("signature (kind | subcommand | detail)", "cases", "seeds"),
           [(k, str(len(v)), _seeds(v)) for k, v in sorted(signatures.items())], md)


def _slowest(results) -> str:
    if not results:
        return "-"
    worst = max(results, key=lambda r: r.seconds)
    return f"{worst.seconds:.1f} s (seed {worst.seed}, {worst.runs} runs)"


def _seeds(seeds: list[int], limit: int = 25) -> str:
    text = " ".join(map(str, seeds[:limit]))
    return text + (f" ... (+{len(seeds) - limit})" if len(seeds) > limit else "")


def _table(header, rows, markdown: bool) -> None:
    rows = [tuple(str(c) for c in row) for row in rows]
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
        return
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def minimise_all(results, config, max_probes: int) -> None:
    done = set()
    for result in results:
        for failure in result.new_failures:
            key = failure.signature()
            if key in done:
                continue
            done.add(key)
            print(f"\nminimising seed {result.seed}: {key}", flush=True)
            data = fuzz.minimise(result.seed, failure, config, max_probes=max_probes,
                                 log=lambda text: print("  " + text, file=sys.stderr,
                                                        flush=True))
            print(f"minimal input ({len(data)} bytes):")
            print(repr(data) if len(data) < 600 else repr(data[:600]) + " ...")


if __name__ == "__main__":
    sys.exit(main())
