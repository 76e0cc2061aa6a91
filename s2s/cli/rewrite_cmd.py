"""The shared frame of the rewriting subcommands: three printers of one edit set.

``--diff`` (default) prints a unified diff that ``git apply`` / ``patch -p1`` accept,
``--in-place`` writes atomically, ``-o DIR`` writes rewritten copies under DIR (keeping the
paths relative to the current directory), ``--check`` prints which files would change and
exits 1 if any would (and with ``--diff`` also prints the diff, as black does). The input
``-`` reads one file from stdin under ``--stdin-filename``: the rewritten text goes to stdout
(what an editor's format-on-save replaces the buffer with), or its diff with ``--diff``.
``--format json`` and ``--format sarif`` print the same edit set as one
document on stdout instead of the diff (the other modes write files as they do in text).
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from s2s import parallel
from s2s.cli.common import Console, plural, report_results, verbose_line
from s2s.cli.inputs import STDIN
from s2s.diagnostics import Diagnostic, DiagnosticPrinter, InputError, Location, UsageError
from s2s.driver import (
    Failed,
    FileResult,
    Pass,
    RunOptions,
    Success,
    exit_code,
    process_files,
)
from s2s.edits import beside_name
from s2s.frontend.core.parse import read_stream
from s2s.output import (
    FileChange,
    colored_diff,
    output_copies,
    quote_path,
    write_generated,
    write_in_place,
    write_output,
)
from s2s.printers import json_doc
from s2s.printers.json_doc import rewrite_entry, rewrite_summary
from s2s.run_cache import cached_diff
from s2s.transform import registry
from s2s.whole_program import process_program


def run_rewrite(args, options: RunOptions, printer: DiagnosticPrinter, console: Console,
                run_pass: Pass) -> int:
    if args.backup and not args.in_place:
        raise UsageError("--backup only makes sense with --in-place")
    if args.force and not args.in_place:
        raise UsageError("--force only makes sense with --in-place")
    if args.diff and (args.in_place or args.output_dir):
        raise UsageError("--diff prints the changes; --in-place and -o write them: give one")
    if args.check and (args.in_place or args.output_dir):
        raise UsageError("--check only tells what would change; it writes nothing (drop "
                         "--in-place / -o)")
    sources: dict[str, bytes] = {}
    if args.files == [STDIN]:
        args.files = [args.stdin_filename]
        sources[args.stdin_filename] = read_stream(sys.stdin.buffer, args.stdin_filename)
        printer.sources[args.stdin_filename] = sources[args.stdin_filename]
    copies = output_copies(args.files, args.output_dir) if args.output_dir else {}
    results: list[FileResult] = []  # kept for a JSON or SARIF document only
    tally = _Tally(args.check)
    ready: dict[tuple, str] = {}    # the diffs worked out ahead, -j N at a time
    if registry.is_whole_program(run_pass):
        # one analysis of the whole program (files and their project headers), then per file
        # (the text printers read no model: a replayed run need not load them)
        program = process_program(list(args.files), options, run_pass, sources,
                                  models=args.format != "text")
        if sources:         # stdin: the editor's buffer is the output; headers are not touched
            program = [r for r in program if r.path in sources] + \
                [_untouched_header(r) for r in program if r.path not in sources]
        extra = [r.path for r in program if r.path not in copies]
        if args.output_dir and extra:
            copies.update(output_copies(extra, args.output_dir))
        paths = [r.path for r in program]
        if args.diff and args.format == "text" and options.jobs > 1:
            ready = diffs_ahead([r for r in program if r.path not in sources], options.jobs)
        produce = _handed_out(program)
    else:
        produce = process_files(args.files, options, run_pass, sources)
        paths = list(args.files)
    excerpts: tuple[str, ...] = ()
    with console.progress(len(paths)) as advance:
        for path, result in zip(paths, produce, strict=True):
            if path in sources:
                result = _emitted_to_stdout(result, args, sources[path], console)
            elif isinstance(result, Success) and result.change is not None:
                excerpts = _excerpts_before(printer, result)
                result = _emitted(result, args, copies.get(path), console, ready)
                if isinstance(result, Success) and args.output_dir and args.command == "mgpu":
                    result = _with_header_copies(result, args.output_dir, copies)
            tally.add(result)
            if args.format != "text":
                results.append(result)
            advance(path)
            report_results([result], printer, console)
            for excerpted in excerpts:      # (a file's text is not kept once it is printed)
                printer.sources.pop(excerpted, None)
            excerpts = ()
            if console.verbose:
                verbose_line(result, console)
            del result  # streamed: a file's model and texts go once it is printed
    counts = tally.counts
    if not console.quiet:
        verb = "would change" if (args.check or not (args.in_place or args.output_dir)) \
            else "changed"
        extra = "".join(f", {n} {what}" for what, n in counts.items())
        generated = f" (and {plural(tally.generated, 'generated file')})" \
            if tally.generated else ""
        console.status(f"{plural(tally.files, 'file')}: {tally.changed} {verb}{generated}, "
                       f"{tally.failed} failed{extra}")
    code = tally.code
    if args.strict and any(n for what, n in counts.items() if what.startswith("left")):
        code = max(code, 1)
    _print_document(args, results, counts, printer, code)
    return code


def _excerpts_before(printer: DiagnosticPrinter, result: Success) -> tuple[str, ...]:
    """The printer's excerpts of ``result``'s files from their text before the rewrite: its
    messages are about the original's lines, and ``--in-place`` writes the rewrite before
    they are printed (a warning showed the rewritten line under the original's line number).
    Only for a result with messages; returns the paths added, which the caller drops once
    the result is printed (a run over many files keeps no file's text)."""
    if not result.diagnostics:
        return ()
    added = []
    for change in (result.change, *result.generated):
        if not getattr(change, "created", False) and change.path not in printer.sources:
            printer.sources[change.path] = change.before
            added.append(change.path)
    return tuple(added)


def _with_header_copies(result: Success, output_dir: str, copies: dict[str, str]
                        ) -> FileResult:
    """``mgpu -o DIR``: the project headers the file includes (those under the current
    directory) are copied beside its copy, unchanged, as they sit beside the original: the
    rewrite names the original source's directory only through ``__FILE__``, so the runtime
    compiles the kernels of a header from the copy's directory (before: the program built
    with -I and failed at run time unless ``-- -I.`` was given). A header this run writes
    anyway (an input, or copied for another file) is written once, and a ``.cu`` file the
    rewrite changed (included as text: its launches are rewritten) is its rewrite."""
    written = {os.path.realpath(p) for p in copies}
    written |= {os.path.realpath(c.path) for c in result.generated}
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
        from s2s.printers import sarif

        sys.stdout.write(sarif.dumps(sarif.sarif_log(args.command, results, shown, code)))
    sys.stdout.flush()


class _Tally:
    """What the summary line and the exit status need of the results, added up as they come.
    Why: a run over thousands of files keeps no file's model or texts once it is printed, so
    its memory is that of the largest file, not of their number."""

    def __init__(self, changes_are_failure: bool):
        self.changes_are_failure = changes_are_failure
        self.files = self.changed = self.failed = self.code = self.generated = 0
        self.counts: dict[str, int] = {}  # the passes' counts (in the order they give them)

    def add(self, result: FileResult) -> None:
        self.files += 1
        self.failed += isinstance(result, Failed)
        self.changed += bool(isinstance(result, Success) and result.change
                             and result.change.changed)
        self.generated += sum(c.changed for c in getattr(result, "generated", ()))
        self.code = max(self.code, exit_code([result], self.changes_are_failure))
        for what, n in getattr(result, "counts", ()):
            self.counts[what] = self.counts.get(what, 0) + n


def _handed_out(results: list[FileResult]):
    """The results of a whole-program run one by one, each dropped from the list as it is
    handed out (the list would keep every file's model and texts to the end)."""
    results.reverse()
    while results:
        yield results.pop()


def _emitted(result: Success, args, copy: str | None, console: Console,
             ready: dict[tuple, str] | None = None) -> FileResult:
    """Print or write ``result``'s change and the files generated with it (each written
    before the source that includes it: a failed write never leaves a source including a
    file that is not there); a write that fails (read-only directory, full disk, a refused
    in-place target) fails this file only, and the run goes on."""
    writes = args.in_place or copy is not None
    try:
        for generated in result.generated if writes else ():
            _emit_generated(generated, args, copy, console, result.path, ready)
        _emit(result.change, args, copy, console, ready)
        for generated in () if writes else result.generated:   # shown after the source
            _emit_generated(generated, args, copy, console, result.path, ready)
    except InputError as error:
        said = error.diagnostic
        if said.id in ("write-failed", "output-not-regular"):
            said = replace(said, message=f"{said.message}; {result.path} is left as it was")
        return Failed(result.path, result.diagnostics + (said,))
    except OSError as error:
        where = error.filename or copy or result.path
        problem = InputError(f"cannot write {where}: {error.strerror or error}; "
                             f"{result.path} is left as it was", id="write-failed")
        return Failed(result.path, result.diagnostics + (problem.diagnostic,))
    return result


def _untouched_header(result: FileResult) -> FileResult:
    """A header of the program read from stdin: left as it is, said if the pass would have
    changed it (an editor rewrites the one buffer it sent)."""
    if not (isinstance(result, Success) and result.change is not None and result.change.changed):
        return result
    note = Diagnostic.warning(f"{result.path} would change too, but with '-' only the text "
                              "read from stdin is rewritten; run s2s on the files to rewrite "
                              "it", "stdin-header-not-rewritten", Location(result.path, 1, 1, 0))
    kept = FileChange(result.path, result.change.before, result.change.before)
    return replace(result, change=kept, diagnostics=result.diagnostics + (note,))


def _emitted_to_stdout(result: FileResult, args, source: bytes, console: Console
                       ) -> FileResult:
    """The text read from stdin: its rewrite on stdout (the text unchanged when the file
    failed, so that a pipe into a file never leaves it empty; the exit code says it failed);
    its diff with ``--diff``."""
    if args.format != "text":
        return result
    change = result.change if isinstance(result, Success) else None
    if change is not None and any(g.changed for g in result.generated):
        if args.diff or args.check:
            _emit(change, args, None, console)
            for generated in result.generated:
                _emit_generated(generated, args, None, console, result.path)
            return result
        name = os.path.basename(result.generated[0].path)
        refused = Diagnostic.error(
            f"s2s {args.command} generates {name} beside {result.path}, which stdout cannot "
            "carry; the text is printed unchanged (run it on the file, or use --diff)",
            "stdin-generated-file", Location(result.path, 1, 1, 0))
        sys.stdout.buffer.write(source)
        sys.stdout.flush()
        return Failed(result.path, result.diagnostics + (refused,))
    if change is None:
        if not (args.diff or args.check):
            sys.stdout.buffer.write(source)
            sys.stdout.flush()
        return result
    if args.diff:
        _write_diff(change, console)
    elif args.check:
        if change.changed:
            console.status(f"{quote_path(change.path)}: would be changed")
    else:
        sys.stdout.buffer.write(change.after)
        sys.stdout.flush()
    return result


def diffs_ahead(results: list[FileResult], jobs: int) -> dict[tuple, str]:
    """The diffs of the results' changes (and of the files generated with them), by
    :func:`diff_key`, worked out ``jobs`` at a time (:func:`s2s.parallel.gathered`: difflib on
    a big file with many repeated lines was the last serial step after the check); the text
    printers then only print them, in order, as with one job."""
    changes = [change for result in results if isinstance(result, Success)
               for change in result.changes if change.changed]
    texts = parallel.gathered(cached_diff, changes, jobs)
    return {diff_key(change): text for change, text in zip(changes, texts, strict=True)}


def diff_key(change: FileChange) -> tuple:
    """What a diff is made of: the path, whether the file is new and both texts."""
    return change.path, change.created, change.before, change.after


def _write_diff(change: FileChange, console: Console, ready: dict[tuple, str] | None = None
                ) -> None:
    diff = (ready or {}).get(diff_key(change))
    if diff is None:
        diff = cached_diff(change)
    sys.stdout.write(colored_diff(diff) if console.out_color else diff)
    sys.stdout.flush()


def _emit(change: FileChange, args, copy: str | None, console: Console,
          ready: dict[tuple, str] | None = None) -> None:
    if args.check:
        if change.changed:
            console.status(f"{quote_path(change.path)}: would be changed")
            if args.diff and args.format == "text":
                _write_diff(change, console, ready)
    elif args.in_place:
        write_in_place(change, args.backup, force=args.force)
    elif copy is not None:
        _write_copy(change, copy)
    elif args.format == "text":
        _write_diff(change, console, ready)


def _emit_generated(change: FileChange, args, copy: str | None, console: Console,
                    source: str, ready: dict[tuple, str] | None = None) -> None:
    """A file the pass generates beside the source: ``--check`` says it, ``--diff`` shows it
    (from /dev/null when it is new), ``--in-place`` writes it beside the source, ``-o DIR``
    beside the source's copy."""
    if args.check:
        if change.changed:
            verb = "would be created" if change.created else "would be changed"
            console.status(f"{quote_path(change.path)}: {verb} (generated)")
            if args.diff and args.format == "text":
                _write_diff(change, console, ready)
    elif args.in_place:
        write_generated(change)
    elif copy is not None:
        write_generated(change, os.path.join(os.path.dirname(copy), beside_name(change.path, source)))
    elif args.format == "text":
        _write_diff(change, console, ready)


def _write_copy(change: FileChange, target: str) -> None:
    """Write the rewritten file (changed or not) to its copy under ``-o DIR``."""
    write_output(target, change.after, os.stat(change.path).st_mode & 0o777, make_parents=True)
