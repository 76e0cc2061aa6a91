"""Running a pass over a whole program: the files given plus the project headers they include.

The unit of analysis is the program (:mod:`s2s.model.program`): allocations in one file, kernels
in another, target regions in a header all seen by one run of the pass; the results stay per
file, so the printers (``--diff``, ``--in-place``, ``-o``, ``--check``) are the same as for one
file. A project header with OpenMP directives is parsed as a unit of its own, once however many
files include it, in the language and with the flags of the first file that includes it; system
headers never are. A header that does not parse on its own is reported and left as written.

Each file's part of the rewrite is checked to parse before it is emitted
(:func:`s2s.driver.checked_output`); a group of edits (one data region and the clauses it relies
on) whose part in one file does not parse is dropped in every file.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import replace

from s2s import deep_stack, gc_pause
from s2s.diagnostics import Diagnostic, InternalError, Location, S2SError
from s2s.driver import (
    Failed,
    FileResult,
    Pass,
    PassOutput,
    RunOptions,
    Skipped,
    Success,
    apply_edits,
    checked_output,
    failed_by,
    load_and_run,
    parse_options_for,
    run_on_loaded,
)
from s2s.edits import Edit
from s2s.frontend.extract import Loaded
from s2s.frontend.openmp import count_target_constructs
from s2s.frontend.parse import ParseOptions
from s2s.model.program import NameClash, Program, merge_units
from s2s.transform.check import CheckedEdits
from s2s.transform.omp import LEFT_COUNT

HEADER_SKIPPED = "header-skipped"


def process_program(paths: list[str], options: RunOptions, run_pass: Pass) -> list[FileResult]:
    """Results of ``run_pass`` over the program of ``paths``: one per file given (in order),
    then one per project header analysed with them. Files that fail to load are Failed and
    the others form the program; when their function names clash, every file is processed on
    its own (the clash is reported on each)."""
    return gc_pause.call(deep_stack.call, _process_program, paths, options, run_pass)


def _process_program(paths: list[str], options: RunOptions, run_pass: Pass) -> list[FileResult]:
    parsed: dict[str, tuple[tuple[str, float], ...]] = {}
    results = _program(paths, options, run_pass, parsed)
    # each file's parse time in front of the pass's (for -v)
    return [replace(r, timings=parsed.get(r.path, ()) + r.timings) if isinstance(r, Success)
            else r for r in results]


def _program(paths: list[str], options: RunOptions, run_pass: Pass,
             parsed: dict[str, tuple[tuple[str, float], ...]]) -> list[FileResult]:
    loaded, results, flags = [], {}, {}
    for path in dict.fromkeys(paths):          # a file named twice is one file of the program
        result = load_and_run(path, options, None, None)
        if isinstance(result, Success):
            loaded.append(result.loaded)
            flags[path] = parse_options_for(options, path)
            parsed[path] = result.timings
        else:
            results[path] = result
    headers, header_results = _headers(loaded, paths, flags)
    results.update(header_results)
    units = loaded + headers
    order = list(dict.fromkeys(paths)) + [h.path for h in headers] + list(header_results)
    if not units:                               # nothing loaded: every file has its Failed
        return [results[path] for path in dict.fromkeys(order)]
    if len(units) == 1:
        results[units[0].path] = _guarded(units[0], flags[units[0].path], run_pass)
        return [results[path] for path in dict.fromkeys(order)]
    try:
        program = merge_units([(one.model, one.source) for one in units])
    except NameClash as error:
        clash = Diagnostic.warning(f"analysed on its own, not as part of the program of "
                                   f"{len(units)} files: {error}", "program-name-clash")
        for one in units:
            result = _guarded(one, flags[one.path], run_pass)
            if isinstance(result, Success):
                result = replace(result, diagnostics=result.diagnostics + (clash,))
            results[one.path] = result
        return [results[path] for path in dict.fromkeys(order)]
    try:
        results.update(_run_program(program, units, flags, run_pass))
    except S2SError as error:
        for one in units:
            results[one.path] = Failed(one.path, (error.diagnostic,))
    except Exception as error:  # a bug in s2s: every file of the program fails, none is touched
        internal = InternalError(f"internal error while processing the program: "
                                 f"{type(error).__name__}: {error}").diagnostic
        for one in units:
            results[one.path] = Failed(one.path, (internal,), traceback.format_exc())
    return [results[path] for path in dict.fromkeys(order)]


def _run_program(program: Program, units: list[Loaded], flags: dict[str, ParseOptions],
                 run_pass: Pass) -> dict[str, FileResult]:
    """One run of the pass over the program, its output checked and applied per file."""
    start = time.perf_counter()
    output = run_pass(Loaded(units[0].path, program.source, program.unit, ()))
    planned = time.perf_counter()
    checked = _checked_program(program, output, units, flags)
    timings = (("pass (whole program)", planned - start),
               ("check (whole program)", time.perf_counter() - planned))
    results: dict[str, FileResult] = {}
    for index, one in enumerate(units):
        part, check = checked[one.path]
        results[one.path] = Success(one.path, one, apply_edits(one.path, one.source, check.edits),
                                    one.diagnostics + part.diagnostics + check.diagnostics,
                                    check.incomplete, part.counts if index == 0 else (),
                                    part.groups, timings if index == 0 else ())
    return results


def _guarded(one: Loaded, parse: ParseOptions, run_pass: Pass) -> FileResult:
    """``run_on_loaded`` that turns a failure into this file's Failed (as load_and_run)."""
    try:
        return run_on_loaded(one, parse, run_pass)
    except Exception as error:
        return failed_by(one.path, error)


def _headers(loaded: list[Loaded], paths: list[str], flags: dict[str, ParseOptions]
             ) -> tuple[list[Loaded], dict[str, FileResult]]:
    """The project headers with OpenMP directives that the files include, loaded as units of
    their own; and a Skipped result for each one that does not parse on its own."""
    seen = {os.path.realpath(p) for p in paths}
    units, skipped = [], {}
    for one in loaded:
        for header in one.model.project_headers:
            path = os.path.normpath(header)
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            try:
                with open(path, "rb") as handle:
                    text = handle.read()
            except OSError:
                continue
            if b"#pragma omp" not in text and b"# pragma omp" not in text:
                continue            # no directive: nothing a pass could map there
            options = replace(flags[one.path], language=one.model.language)
            result = load_and_run(path, RunOptions(options), None, None)
            if isinstance(result, Success):
                units.append(result.loaded)
                flags[path] = options
                continue
            first = next((d for d in result.diagnostics if d.is_error), None)
            why = f": {first.message}" if first is not None else ""
            kernels = count_target_constructs(text)
            skipped[path] = Skipped(path, "does not parse on its own", (Diagnostic.warning(
                f"project header included by {one.path} has OpenMP directives but does not "
                f"parse on its own{why}; it is left as written"
                + (f" ({kernels} target constructs counted as left unmapped)" if kernels
                   else ""), HEADER_SKIPPED, Location(path, 1, 1, 0)),),
                ((LEFT_COUNT, kernels),) if kernels else ())
    return units, skipped


def _checked_program(program: Program, output: PassOutput, units: list[Loaded],
                     flags: dict[str, ParseOptions]) -> dict[str, tuple[PassOutput, CheckedEdits]]:
    """Each file's part of the output and its checked edits. A group (one data region and
    the clauses it relies on) may have edits in several files: when its part in one file does
    not parse, its parts in the others are dropped too, with a warning there."""
    dropped: dict[int, str] = {}
    said: dict[str, tuple[Diagnostic, ...]] = {}     # why a file's part was dropped
    # each group's edits in each file's offsets
    parts = [{one.path: set(program_part(program, PassOutput(group.edits), one.path, False).edits)
              for one in units} for group in output.groups]
    while True:
        out = {}
        for index, one in enumerate(units):
            part = program_part(program, output, one.path, counts=index == 0, skip=dropped)
            out[one.path] = (part, checked_output(one.path, one.source, part, flags[one.path]))
        newly = {}
        for path, (_part, check) in out.items():
            kept = set(check.edits)
            for number, local in enumerate(parts):
                if number not in dropped and local[path] and not local[path] <= kept:
                    newly[number] = path
                    said[path] = check.diagnostics
        if not newly:
            break
        dropped.update(newly)
    for path, diagnostics in said.items():
        part, check = out[path]
        out[path] = (part, replace(check, diagnostics=diagnostics + tuple(
            d for d in check.diagnostics if d not in diagnostics), incomplete=True))
    for number, failed_in in dropped.items():
        group = output.groups[number]
        for path, (part, check) in out.items():
            if path != failed_in and parts[number][path]:
                note = Diagnostic.warning(f"{group.label} is left as written: its edits in "
                                          f"{failed_in} do not compile", group.invalid_id)
                out[path] = (part, replace(check, diagnostics=check.diagnostics + (note,),
                                           incomplete=True))
    return out


def program_part(program: Program, output: PassOutput, path: str, counts: bool,
                 skip: dict[int, str] | None = None) -> PassOutput:
    """The part of a whole-program pass's output that belongs to ``path``, in that file's
    offsets: its edits and groups (less the groups numbered in ``skip``), the diagnostics
    located in it (those located nowhere go with the first file, as do the counts)."""
    skip = skip or {}
    skipped = {e for number in skip for e in output.groups[number].edits}

    def local(edits) -> tuple[Edit, ...]:
        out = []
        for edit in edits:
            where, offset = program.locate(edit.offset)
            if where == path and edit not in skipped:
                out.append(replace(edit, path=path, offset=offset))
        return tuple(out)

    def mine(diagnostic: Diagnostic) -> bool:
        location = diagnostic.location
        return location.file == path if location is not None else counts

    def moved(diagnostic: Diagnostic) -> Diagnostic:
        location = diagnostic.location
        if location is not None and location.offset is not None:
            location = replace(location, offset=program.locate(location.offset)[1])
        return replace(diagnostic, location=location, notes=tuple(map(moved, diagnostic.notes)))

    groups = tuple(replace(g, edits=local(g.edits), at=program.local_span(g.at))
                   for number, g in enumerate(output.groups) if number not in skip)
    return PassOutput(local(output.edits), tuple(moved(d) for d in output.diagnostics if mine(d)),
                      tuple(g for g in groups if g.edits), output.check_compiles,
                      output.counts if counts else ())
