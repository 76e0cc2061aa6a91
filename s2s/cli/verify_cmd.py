"""``s2s verify FILE...``: run the original and the rewritten program and compare them.

The files form one program (``--each``: one program per file). Results go to stdout, a table
per program (or ``--format json``); problems go through the diagnostics printer. Exit 0 when
every program behaves the same after the rewrite, 1 when one does not (or does not build),
2 when nothing could be verified (missing toolchain, CUDA programs for now).
"""

from __future__ import annotations

import json
import shlex

from rich.table import Table

from s2s.cli.common import Console
from s2s.diagnostics import DiagnosticPrinter, UsageError
from s2s.driver import RunOptions
from s2s.transform import registry
from s2s.verify.differential import ProgramRun, Verdict, VerifyOptions, verify_program
from s2s.wrapper.config import ConfigProblem, parse_pass_list


def add_verify_options(parser) -> None:
    parser.add_argument("--args", default="", metavar="ARGS",
                        help="arguments for both programs, one shell-quoted string")
    parser.add_argument("--tolerance", type=float, default=0.0, metavar="REL",
                        help="relative tolerance for numbers in the outputs (default 0: equal)")
    parser.add_argument("--passes", default="omp", metavar="LIST",
                        help="passes that make the rewritten program (default: omp)")
    parser.add_argument("--each", action="store_true",
                        help="each FILE is a program of its own (default: FILEs form one)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                        help="time limit of each run (default 120)")
    parser.add_argument("--explain", action="store_true",
                        help="also show the passes' explanations of each change")


def run_verify(args, run_options: RunOptions, extra_flags: tuple[str, ...],
               printer: DiagnosticPrinter, console: Console) -> int:
    options = VerifyOptions(run=run_options, passes=_passes(args.passes),
                            args=tuple(shlex.split(args.args)), tolerance=args.tolerance,
                            timeout=args.timeout, build_flags=extra_flags)
    programs = [[f] for f in args.files] if args.each else [list(args.files)]
    verdicts = []
    for sources in programs:
        verdict = verify_program(sources, options)
        verdicts.append(verdict)
        for diagnostic in verdict.diagnostics:
            if not (console.quiet and not diagnostic.is_error):
                printer.emit(diagnostic)
        if args.format == "text":
            _print_verdict(verdict, console, args.tolerance)
    if args.format == "json":
        console.out.print_json(json.dumps([_to_json(v) for v in verdicts]))
    failed = sum(not v.ok for v in verdicts)
    if not console.quiet:
        console.status(f"{len(verdicts)} program(s) verified: {len(verdicts) - failed} same "
                       f"behaviour, {failed} failed")
    return 1 if failed else 0


def _passes(text: str):
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
    for column in ("program", "exit", "h2d copies", "h2d bytes", "d2h copies", "d2h bytes",
                   "unmapped pointers"):
        table.add_column(column, justify="left" if column == "program" else "right")
    for name, run in (("original", verdict.original), ("rewritten", verdict.rewritten)):
        if run is not None:
            table.add_row(name, *_cells(run))
    if verdict.original is not None and verdict.rewritten is not None:
        console.out.print(table)
        same = "identical" if tolerance == 0 else f"equal within relative tolerance {tolerance:g}"
        outcome = same if not verdict.differences else \
            f"DIFFERENT ({len(verdict.differences)} place(s))"
        console.out.print(f"outputs: {outcome}; verdict: {'OK' if verdict.ok else 'FAILED'}")
    else:
        console.out.print("verdict: FAILED (not run)")


def _cells(run: ProgramRun) -> list[str]:
    copies = run.copies
    counts = ["-"] * 4 if copies is None else [str(copies.h2d_count), str(copies.h2d_bytes),
                                               str(copies.d2h_count), str(copies.d2h_bytes)]
    return [str(run.returncode), *counts, str(len(run.unmapped))]


def _to_json(verdict: Verdict) -> dict:
    def run_json(run: ProgramRun | None):
        if run is None:
            return None
        copies = None if run.copies is None else {
            "h2d_count": run.copies.h2d_count, "h2d_bytes": run.copies.h2d_bytes,
            "d2h_count": run.copies.d2h_count, "d2h_bytes": run.copies.d2h_bytes}
        return {"returncode": run.returncode, "copies": copies, "unmapped": list(run.unmapped)}

    return {"sources": list(verdict.sources), "kind": verdict.kind, "ok": verdict.ok,
            "changed": list(verdict.changed), "original": run_json(verdict.original),
            "rewritten": run_json(verdict.rewritten), "differences": list(verdict.differences),
            "diagnostics": [d.to_json() for d in verdict.diagnostics]}
