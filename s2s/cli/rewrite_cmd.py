"""The shared frame of the rewriting subcommands: three printers of one edit set.

``--diff`` (default) prints a unified diff that ``git apply`` / ``patch -p1`` accept,
``--in-place`` writes atomically, ``-o DIR`` writes rewritten copies under DIR (keeping the
paths relative to the current directory), ``--check`` prints which files would change and
exits 1 if any would. ``--format json`` and ``--format sarif`` print the same edit set as one
document on stdout instead of the diff (the other modes write files as they do in text).
"""

from __future__ import annotations

import os
import sys

from s2s.cli.common import Console, plural, report_results, verbose_line
from s2s.diagnostics import DiagnosticPrinter, InputError, UsageError
from s2s.driver import (
    Failed,
    FileResult,
    Pass,
    RunOptions,
    Success,
    exit_code,
    process_file,
)
from s2s.output import (
    FileChange,
    atomic_write,
    output_copies,
    quote_path,
    unified_diff,
    write_in_place,
)
from s2s.printers import json_doc, sarif
from s2s.printers.json_doc import rewrite_entry, rewrite_summary
from s2s.transform import registry
from s2s.whole_program import process_program


def run_rewrite(args, options: RunOptions, printer: DiagnosticPrinter, console: Console,
                run_pass: Pass) -> int:
    if args.backup and not args.in_place:
        raise UsageError("--backup only makes sense with --in-place")
    if args.force and not args.in_place:
        raise UsageError("--force only makes sense with --in-place")
    copies = output_copies(args.files, args.output_dir) if args.output_dir else {}
    results: list[FileResult] = []
    if registry.is_whole_program(run_pass):
        # one analysis of the whole program (files and their project headers), then per file
        program = process_program(list(args.files), options, run_pass)
        extra = [r.path for r in program if r.path not in copies]
        if args.output_dir and extra:
            copies.update(output_copies(extra, args.output_dir))
        produce = iter(program)
        paths = [r.path for r in program]
    else:
        produce = (process_file(path, options, run_pass) for path in args.files)
        paths = list(args.files)
    with console.progress(len(paths)) as advance:
        for path, result in zip(paths, produce, strict=True):
            if isinstance(result, Success) and result.change is not None:
                result = _emitted(result, args, copies.get(path), console)
                if isinstance(result, Success) and args.output_dir and args.command == "mgpu":
                    result = _with_header_copies(result, args.output_dir, copies)
            results.append(result)
            advance(path)
            report_results([result], printer, console)
            if console.verbose:
                verbose_line(result, console)
    changed = [r for r in results if isinstance(r, Success) and r.change and r.change.changed]
    counts = _counts(results)
    if not console.quiet:
        failed = sum(isinstance(r, Failed) for r in results)
        verb = "would change" if (args.check or not (args.in_place or args.output_dir)) \
            else "changed"
        extra = "".join(f", {n} {what}" for what, n in counts.items())
        console.status(f"{plural(len(results), 'file')}: {len(changed)} {verb}, {failed} failed"
                       f"{extra}")
    code = exit_code(results, changes_are_failure=args.check)
    if args.strict and any(n for what, n in counts.items() if what.startswith("left")):
        code = max(code, 1)
    _print_document(args, results, counts, printer, code)
    return code


def _with_header_copies(result: Success, output_dir: str, copies: dict[str, str]
                        ) -> FileResult:
    """``mgpu -o DIR``: the project headers the file includes (those under the current
    directory) are copied beside its copy, unchanged, as they sit beside the original: the
    rewrite names the original source's directory only through ``__FILE__``, so the runtime
    compiles the kernels of a header from the copy's directory (before: the program built
    with -I and failed at run time unless ``-- -I.`` was given). A header this run writes
    anyway (an input, or copied for another file) is written once."""
    written = {os.path.realpath(p) for p in copies}
    headers = [h for h in result.loaded.model.project_headers
               if not os.path.relpath(os.path.abspath(h)).startswith("..")
               and os.path.isfile(h) and os.path.realpath(h) not in written]
    try:
        for header, target in output_copies(headers, output_dir).items():
            copies[header] = target
            with open(header, "rb") as handle:
                data = handle.read()
            _write_copy(FileChange(header, data, data), target)
    except (OSError, UsageError) as error:
        problem = InputError(f"cannot copy the headers of {result.path} to {output_dir}: "
                             f"{getattr(error, 'strerror', None) or error}", id="write-failed")
        return Failed(result.path, result.diagnostics + (problem.diagnostic,))
    return result


def _print_document(args, results: list[FileResult], counts: dict[str, int],
                    printer: DiagnosticPrinter, code: int) -> None:
    """``--format json`` / ``sarif``: the run's edit set as one document on stdout."""
    def shown(diagnostic) -> bool:
        return not printer.is_silenced(diagnostic)

    if args.format == "json":
        files = [rewrite_entry(r, shown) for r in results]
        document = json_doc.envelope(args.command, files,
                                     summary=rewrite_summary(results, counts))
        sys.stdout.write(json_doc.dumps(document))
    elif args.format == "sarif":
        sys.stdout.write(sarif.dumps(sarif.sarif_log(args.command, results, shown, code)))
    sys.stdout.flush()


def _counts(results: list[FileResult]) -> dict[str, int]:
    """The passes' counts summed over the files (in the order the pass gives them)."""
    total: dict[str, int] = {}
    for result in results:
        for what, n in getattr(result, "counts", ()):
            total[what] = total.get(what, 0) + n
    return total


def _emitted(result: Success, args, copy: str | None, console: Console) -> FileResult:
    """Print or write ``result``'s change; a write that fails (read-only directory, full
    disk, a refused in-place target) fails this file only, and the run goes on."""
    try:
        _emit(result.change, args, copy, console)
    except InputError as error:
        return Failed(result.path, result.diagnostics + (error.diagnostic,))
    except OSError as error:
        where = error.filename or copy or result.path
        problem = InputError(f"cannot write {where}: {error.strerror or error}; "
                             f"{result.path} is left as it was", id="write-failed")
        return Failed(result.path, result.diagnostics + (problem.diagnostic,))
    return result


def _emit(change: FileChange, args, copy: str | None, console: Console) -> None:
    if args.check:
        if change.changed:
            console.status(f"{quote_path(change.path)}: would be changed")
    elif args.in_place:
        write_in_place(change, args.backup, force=args.force)
    elif copy is not None:
        _write_copy(change, copy)
    elif args.format == "text":
        sys.stdout.write(unified_diff(change))
        sys.stdout.flush()


def _write_copy(change: FileChange, target: str) -> None:
    """Write the rewritten file (changed or not) to its copy under ``-o DIR``."""
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    atomic_write(target, change.after, os.stat(change.path).st_mode & 0o777)
