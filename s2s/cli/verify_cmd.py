"""``s2s verify FILE...``: run the original and the rewritten program and compare them.

The files form one program (``--each``: one program per file). Results go to stdout, a table
per program (or ``--format json``); problems go through the diagnostics printer. Exit 0 when
every program behaves the same after the rewrite, 1 when one does not (or does not build),
2 when nothing could be verified (missing toolchain, a construct no backend can run).
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from dataclasses import replace

from rich.table import Table

from s2s.cli.command_options import add_verify_options  # noqa: F401  (its home before)
from s2s.cli.common import Console
from s2s.diagnostics import DiagnosticPrinter, UsageError
from s2s.driver import RunOptions
from s2s.printers import json_doc
from s2s.transform import registry
from s2s.verify import cuda_backend as _cuda_backend  # noqa: F401  (registers the backend)
from s2s.verify.differential import (
    DEFAULT_PASSES,
    ProgramRun,
    Verdict,
    VerifyOptions,
    distinct,
    program_kind,
    verify_program,
)
from s2s.wrapper.config import ConfigProblem, parse_pass_list


def run_verify(args, run_options: RunOptions, extra_flags: tuple[str, ...],
               printer: DiagnosticPrinter, console: Console) -> int:
    devices = 2 if args.devices is None else args.devices     # None: not asked for
    if devices < 1:
        raise UsageError("--devices must be at least 1")
    if args.ranks < 1:
        raise UsageError("--ranks must be at least 1")
    options = VerifyOptions(run=run_options, passes=(), args=program_args(args.args),
                            tolerance=args.tolerance, timeout=args.timeout,
                            build_flags=extra_flags, devices=devices, ranks=args.ranks,
                            devices_asked=args.devices is not None,
                            ignore_lines=_line_patterns(args.ignore_lines),
                            progress=lambda step: console.step("verify", step))
    programs = [[f] for f in args.files] if args.each else [list(args.files)]
    verdicts = []
    for sources in programs:
        if args.ranks > 1 and program_kind(sources, run_options.parse.language) != "cuda":
            raise UsageError("--ranks runs CUDA programs rewritten by mgpu as MPI jobs; "
                             f"{' '.join(sources)} is not a CUDA program")
        names = args.passes if args.passes is not None else DEFAULT_PASSES[program_kind(sources, run_options.parse.language)]
        start = time.perf_counter()
        verdict = verify_program(sources, replace(options, passes=_passes(names)))
        verdicts.append(verdict)
        if console.verbose:
            _verbose(verdict, options, _passes(names), time.perf_counter() - start, console)
        printer.emit_all(d for d in distinct(verdict.diagnostics)
                         if d.is_error or not console.quiet)
        if args.format == "text":
            _print_verdict(verdict, console, args.tolerance)
    if args.format == "json":
        sys.stdout.write(json_doc.dumps(json_doc.envelope(
            "verify", _file_entries(verdicts), programs=[_to_json(v) for v in verdicts])))
        sys.stdout.flush()
    failed = sum(not v.ok for v in verdicts)
    if not console.quiet:
        console.status(f"{len(verdicts)} program(s) verified: {len(verdicts) - failed} same "
                       f"behaviour, {failed} failed")
    return 1 if failed else 0


def _verbose(verdict: Verdict, options: VerifyOptions, passes, seconds: float,
             console: Console) -> None:
    """``-v``: which passes rewrote which files, how both versions were built and run, and
    the time of each stage (the total where the backend does not time its stages)."""
    names = ",".join(name for name, _ in passes)
    changed = ", ".join(verdict.changed) or "none"
    flags = " ".join(options.build_flags) or "(none)"
    console.status(f"verify {' '.join(verdict.sources)}: passes {names}; rewritten: {changed}; "
                   f"build flags {flags}; program arguments {' '.join(options.args) or '(none)'}")
    stages = verdict.stages or (("total", seconds),)
    console.status("  " + ", ".join(f"{stage} {t:.3f} s" for stage, t in stages))


def _file_entries(verdicts: list[Verdict]) -> list[dict]:
    """One entry per source file of the verified programs: whether the passes changed it and
    the diagnostics located in it."""
    entries = []
    for verdict in verdicts:
        for source in verdict.sources:
            said = [d.to_json() for d in verdict.diagnostics
                    if d.location is not None and d.location.file == source]
            entries.append({"path": source, "status": "ok" if verdict.ok else "failed",
                            "diagnostics": said, "changed": source in verdict.changed})
    return entries


def program_args(text: str) -> tuple[str, ...]:
    """``--args`` split as a shell would; a string no shell could split (an unbalanced quote,
    a trailing backslash) is the user's mistake, said as one, not a traceback."""
    try:
        return tuple(shlex.split(text))
    except ValueError as error:
        raise UsageError(f"--args {text!r} is not a shell-quoted argument list: "
                         f"{str(error).lower()}") from None


def _line_patterns(patterns: list[str]) -> tuple[str, ...]:
    """The ``--ignore-lines`` patterns, each checked here so that a bad one is a usage error
    before anything is built or run."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            raise UsageError(f"--ignore-lines {pattern!r} is not a valid regular expression: "
                             f"{error}") from None
    return tuple(patterns)


def _passes(text: str | tuple[str, ...]):
    try:
        names = parse_pass_list(text)
    except ConfigProblem as error:
        raise UsageError(str(error)) from None
    if not names:
        raise UsageError("--passes names no pass")
    passes = []
    for name in names:
        run_pass = registry.get(name)
        if run_pass is None:
            raise UsageError(f"pass '{name}' is not available in this s2s")
        passes.append((name, run_pass))
    return tuple(passes)


def _print_verdict(verdict: Verdict, console: Console, tolerance: float) -> None:
    changed = ", ".join(verdict.changed) if verdict.changed else "none (the passes changed nothing)"
    console.out.print(f"program: {' '.join(verdict.sources)}\nrewritten files: {changed}",
                      markup=False, soft_wrap=True)
    table = Table(expand=False)
    columns = _CUDA_COLUMNS if verdict.kind == "cuda" else _OPENMP_COLUMNS
    for column in columns:
        table.add_column(column, justify="left" if column == "program" else "right")
    for name, run in (("original", verdict.original), ("rewritten", verdict.rewritten)):
        if run is not None:
            table.add_row(name, *_cells(run, verdict.kind))
    if verdict.original is not None and verdict.rewritten is not None:
        console.out.print(table)
        same = "identical" if tolerance == 0 else f"equal within relative tolerance {tolerance:g}"
        outcome = same if not verdict.differences else \
            f"DIFFERENT ({len(verdict.differences)} place(s))"
        console.out.print(f"outputs: {outcome}; verdict: {'OK' if verdict.ok else 'FAILED'}")
    else:
        console.out.print("verdict: FAILED (not run)")


_OPENMP_COLUMNS = ("program", "exit", "h2d copies", "h2d bytes", "d2h copies", "d2h bytes",
                   "unmapped pointers")
_CUDA_COLUMNS = ("program", "devices", "exit", "h2d memcpy", "h2d bytes", "d2h memcpy",
                 "d2h bytes", "d2d memcpy", "d2d bytes", "launches", "split", "cudaMalloc")


def _cells(run: ProgramRun, kind: str) -> list[str]:
    copies = run.copies
    counts = ["-"] * 4 if copies is None else [str(copies.h2d_count), str(copies.h2d_bytes),
                                               str(copies.d2h_count), str(copies.d2h_bytes)]
    if kind != "cuda":
        return [str(run.returncode), *counts, str(len(run.unmapped))]
    traffic = run.traffic
    device = ["-"] * 5 if traffic is None else [
        str(traffic.d2d_calls), str(traffic.d2d_bytes), str(traffic.launches),
        str(traffic.partitioned), str(traffic.mallocs)]
    devices = "-" if traffic is None else str(traffic.devices)
    return [devices, str(run.returncode), *counts, *device]


def _to_json(verdict: Verdict) -> dict:
    def run_json(run: ProgramRun | None):
        if run is None:
            return None
        copies = None if run.copies is None else {
            "h2d_count": run.copies.h2d_count, "h2d_bytes": run.copies.h2d_bytes,
            "d2h_count": run.copies.d2h_count, "d2h_bytes": run.copies.d2h_bytes}
        traffic = None if run.traffic is None else {
            "devices": run.traffic.devices, "d2d_count": run.traffic.d2d_calls,
            "d2d_bytes": run.traffic.d2d_bytes, "launches": run.traffic.launches,
            "split_launches": run.traffic.partitioned, "cuda_malloc": run.traffic.mallocs}
        return {"returncode": run.returncode, "copies": copies, "devices": traffic,
                "unmapped": list(run.unmapped)}

    return {"sources": list(verdict.sources), "kind": verdict.kind, "ok": verdict.ok,
            "changed": list(verdict.changed), "original": run_json(verdict.original),
            "rewritten": run_json(verdict.rewritten), "differences": list(verdict.differences),
            "diagnostics": [d.to_json() for d in verdict.diagnostics]}
