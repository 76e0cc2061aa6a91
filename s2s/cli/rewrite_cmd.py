"""The shared frame of the rewriting subcommands: three printers of one edit set.

``--diff`` (default) prints a unified diff that ``git apply`` / ``patch -p1`` accept,
``--in-place`` writes atomically, ``-o DIR`` writes rewritten copies under DIR (keeping the
paths relative to the current directory), ``--check`` prints which files would change and
exits 1 if any would.
"""

from __future__ import annotations

import os
import sys

from s2s.cli.common import Console, report_results
from s2s.diagnostics import DiagnosticPrinter, UsageError
from s2s.driver import Failed, FileResult, Pass, RunOptions, Success, exit_code, process_file
from s2s.output import FileChange, atomic_write, unified_diff, write_in_place


def run_rewrite(args, options: RunOptions, printer: DiagnosticPrinter, console: Console,
                run_pass: Pass) -> int:
    if args.backup and not args.in_place:
        raise UsageError("--backup only makes sense with --in-place")
    results: list[FileResult] = []
    with console.progress(len(args.files)) as advance:
        for path in args.files:
            result = process_file(path, options, run_pass)
            results.append(result)
            advance(path)
            report_results([result], printer, console)
            if isinstance(result, Success) and result.change is not None:
                _emit(result.change, args, console)
    changed = [r for r in results if isinstance(r, Success) and r.change and r.change.changed]
    if not console.quiet:
        failed = sum(isinstance(r, Failed) for r in results)
        verb = "would change" if (args.check or not (args.in_place or args.output_dir)) \
            else "changed"
        console.status(f"{len(results)} files: {len(changed)} {verb}, {failed} failed")
    return exit_code(results, changes_are_failure=args.check)


def _emit(change: FileChange, args, console: Console) -> None:
    if args.check:
        if change.changed:
            console.status(f"{change.path}: would be changed")
    elif args.in_place:
        write_in_place(change, args.backup)
    elif args.output_dir:
        _write_copy(change, args.output_dir)
    else:
        sys.stdout.write(unified_diff(change))
        sys.stdout.flush()


def _write_copy(change: FileChange, output_dir: str) -> None:
    """Write the rewritten file (changed or not) to DIR/<path relative to the cwd>."""
    rel = os.path.relpath(os.path.abspath(change.path))
    if rel.startswith(".."):
        rel = os.path.basename(change.path)
    target = os.path.join(output_dir, rel)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    atomic_write(target, change.after, os.stat(change.path).st_mode & 0o777)
