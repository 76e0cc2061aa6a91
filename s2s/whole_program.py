"""Running a pass over a whole program: the files given plus the project headers they include.

The unit of analysis is the program (:mod:`s2s.model.program`): allocations in one file, kernels
in another, target regions in a header all seen by one run of the pass; the results stay per
file, so the printers (``--diff``, ``--in-place``, ``-o``, ``--check``) are the same as for one
file. A project header with OpenMP directives is a unit of its own, once however many files
include it: its model is extracted from the parse of the first file that includes it, in that
file's context (its macros, types and includes before the ``#include`` line: the header need not
parse on its own; :func:`s2s.frontend.extract.included_headers`), and its rewrite is checked in
the context of every file of the program that includes it. System headers never are units.

Each file's part of the rewrite is checked to parse before it is emitted
(:func:`s2s.driver.checked_output`); a group of edits (one data region and the clauses it relies
on) whose part in one file does not parse is dropped in every file.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import replace

from s2s import deep_stack, gc_pause, parallel, run_cache
from s2s.diagnostics import Diagnostic, InternalError, Location, S2SError
from s2s.driver import (
    Failed,
    FileResult,
    Pass,
    PassOutput,
    RunOptions,
    Success,
    apply_edits,
    checked_output,
    failed_by,
    file_options,
    load_and_run,
    parse_options_for,
    run_on_loaded,
    settled,
    with_earlier,
)
from s2s.edits import Edit
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import OMP_WORDS, Loaded
from s2s.model.program import NameClash, Program, merge_units
from s2s.transform import registry
from s2s.transform.check import CheckedEdits

#: a header whose model differs between two files that include it
HEADER_CONTEXTS = "header-contexts-differ"


def process_program(paths: list[str], options: RunOptions, run_pass: Pass,
                    sources: dict[str, bytes] | None = None, models: bool = True
                    ) -> list[FileResult]:
    """Results of ``run_pass`` over the program of ``paths``: one per file given (in order),
    then one per project header analysed with them. Files that fail to load are Failed and
    the others form the program; when their function names clash, every file is processed on
    its own (the clash is reported on each). ``sources`` stands in for the bytes of some
    files (the text an editor sends on stdin). A run over files that did not change since a
    kept one replays its results (:mod:`s2s.run_cache`) when the caller reads no model
    (``models=False``: the text printers; each ``loaded.model`` is then None)."""
    key = run_cache.run_key(paths, options, run_pass, sources or {})
    results = run_cache.replayed(key, options, models)
    if results is None:
        results = gc_pause.call(deep_stack.call, _process_program, paths, options, run_pass,
                                sources or {})
        run_cache.keep(key, paths, options, run_pass, results)
    return results


def _process_program(paths: list[str], options: RunOptions, run_pass: Pass,
                     sources: dict[str, bytes]) -> list[FileResult]:
    parsed: dict[str, tuple[tuple[str, float], ...]] = {}
    results = _program(paths, options, run_pass, parsed, sources)
    # each file's parse time in front of the pass's (for -v)
    return [replace(r, timings=parsed.get(r.path, ()) + r.timings) if isinstance(r, Success)
            else r for r in results]


def _program(paths: list[str], options: RunOptions, run_pass: Pass,
             parsed: dict[str, tuple[tuple[str, float], ...]], sources: dict[str, bytes]
             ) -> list[FileResult]:
    loaded, results, flags = [], {}, {}
    word = registry.needs_word(run_pass)
    if word is not None and any(word in _bytes_of(path, sources) for path in paths):
        word = None                 # the pass has work in the program: every file's whole model
    unique = list(dict.fromkeys(paths))         # a file named twice is one file of the program
    for path, result in zip(unique, _loads(unique, options, sources, word), strict=True):
        if isinstance(result, Success):
            loaded.append(result.loaded)
            flags[path] = parse_options_for(options, path)
            parsed[path] = result.timings
        else:
            results[path] = result
    if not all(one.outlined for one in loaded):
        # a file's project header or flags hold what no file's text does: whole models after all
        for at, one in enumerate(loaded):
            if one.outlined:
                result = load_and_run(one.path, options, None, sources.get(one.path))
                if isinstance(result, Success):
                    loaded[at] = result.loaded
                    parsed[one.path] = result.timings
                else:
                    results[one.path] = result
        loaded = [one for one in loaded if one.path not in results]
    includers: dict[str, tuple[tuple[str, bytes], ...]] = {}
    headers, differ = _headers(loaded, paths, flags, includers)
    headers = [replace(h, diagnostics=h.diagnostics + ((differ[h.path],) if h.path in differ
                                                       else ())) for h in headers]
    units = loaded + headers
    order = list(dict.fromkeys(paths)) + [h.path for h in headers]
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
            result = _guarded(one, flags[one.path], run_pass, includers.get(one.path, ()))
            if isinstance(result, Success):
                result = replace(result, diagnostics=result.diagnostics + (clash,))
            results[one.path] = result
        return [results[path] for path in dict.fromkeys(order)]
    try:
        results.update(_run_program(program, units, flags, includers, run_pass, options.jobs))
    except Exception as error:  # noqa: BLE001 - else a bug in s2s: every file of it fails
        if isinstance(error, S2SError) or deep_stack.is_recursion(error):
            for one in units:
                results[one.path] = failed_by(one.path, error)
            return [results[path] for path in dict.fromkeys(order)]
        internal = InternalError(f"internal error while processing the program: "
                                 f"{type(error).__name__}: {error}").diagnostic
        for one in units:
            results[one.path] = Failed(one.path, (internal,), traceback.format_exc())
    return [results[path] for path in dict.fromkeys(order)]


def _loads(paths: list[str], options: RunOptions, sources: dict[str, bytes],
           skip_without: bytes | None) -> list[FileResult]:
    """Each file loaded (parsed and extracted), in order: on ``options.jobs`` worker
    processes when more than one (:mod:`s2s.parallel`; each file's flags looked up here)."""
    if options.jobs <= 1:
        return [load_and_run(path, options, None, sources.get(path), skip_without)
                for path in paths]
    work = [(path, file_options(options, path), None, sources.get(path), skip_without)
            for path in paths]
    return parallel.gathered(_load_one, work, options.jobs)


def _load_one(work: tuple) -> FileResult:
    return load_and_run(*work)


def _bytes_of(path: str, sources: dict[str, bytes]) -> bytes:
    """The file's bytes (those given, or read); a file that cannot be read: none (its load
    says why)."""
    if path in sources:
        return sources[path]
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _run_program(program: Program, units: list[Loaded], flags: dict[str, ParseOptions],
                 includers: dict[str, tuple[tuple[str, bytes], ...]], run_pass: Pass,
                 jobs: int = 1) -> dict[str, FileResult]:
    """One run of the pass over the program, its output checked and applied per file (the
    files' checks on ``jobs`` workers)."""
    start = time.perf_counter()
    output = run_pass(Loaded(units[0].path, program.source, program.unit, ()))
    deep_stack.check_walks()
    planned = time.perf_counter()
    output, checked, rounds = settled(output, lambda out: _checked_program(
        program, out, units, flags, includers, jobs))
    for path, (part, check) in checked.items():
        checked[path] = (part, with_earlier(check, [earlier[path][1] for earlier in rounds]))
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


def _guarded(one: Loaded, parse: ParseOptions, run_pass: Pass,
             includers: tuple[tuple[str, bytes], ...] = ()) -> FileResult:
    """``run_on_loaded`` that turns a failure into this file's Failed (as load_and_run)."""
    try:
        result = run_on_loaded(one, parse, run_pass, includers)
        deep_stack.check_walks()
        return result
    except Exception as error:
        return failed_by(one.path, error)


def _headers(loaded: list[Loaded], paths: list[str], flags: dict[str, ParseOptions],
             includers: dict[str, tuple[tuple[str, bytes], ...]]
             ) -> tuple[list[Loaded], dict[str, Diagnostic]]:
    """The project headers with OpenMP directives that the files include, each once: its model
    as the first file that includes it has it (extracted from that file's parse, in its
    context). ``includers`` gets, per header, every file of the program that includes it
    (its rewrite is checked in each); a header whose model differs between two includers
    (a macro or type it uses means something else in each) gets a warning, keyed by path."""
    seen = {os.path.realpath(p) for p in paths}
    units: dict[str, Loaded] = {}
    differ: dict[str, Diagnostic] = {}
    for one in loaded:
        for header in one.headers:
            if not any(word in header.source for word in OMP_WORDS) and \
                    not header.model.directives:
                continue                # (a CUDA file's headers of device code)
            real = os.path.realpath(header.path)
            if real in seen and header.path not in units:
                continue                # a file given on the command line, or a header's twin
            seen.add(real)
            first = units.setdefault(header.path, header)
            includers[header.path] = includers.get(header.path, ()) + ((one.path, one.source),)
            if first is header:
                flags[header.path] = flags[one.path]
            elif header.path not in differ and not _same_meaning(first.model, header.model):
                differ[header.path] = Diagnostic.warning(
                    f"project header analysed in the context of {includers[header.path][0][0]}, "
                    f"its first includer; {one.path} includes it where its macros or types "
                    f"mean something else: its rewrite is checked in both", HEADER_CONTEXTS,
                    Location(header.path, 1, 1, 0))
    return list(units.values()), differ


def _same_meaning(one, other) -> bool:
    """Whether two includers' models of a header agree (the headers each includer lists
    besides it aside)."""
    return replace(one, project_headers=()) == replace(other, project_headers=())


def _checked_program(program: Program, output: PassOutput, units: list[Loaded],
                     flags: dict[str, ParseOptions],
                     includers: dict[str, tuple[tuple[str, bytes], ...]], jobs: int = 1
                     ) -> tuple[dict[str, tuple[PassOutput, CheckedEdits]], tuple[int, ...]]:
    """Each file's part of the output and its checked edits, and the numbers of the groups
    dropped (in some file). A group (one data region and
    the clauses it relies on) may have edits in several files: when its part in one file does
    not parse, its parts in the others are dropped too, with a warning there. The files are
    checked on ``jobs`` forked workers (each check is a parse and a clang-16 run of its own;
    the results, in file order, are those of one job)."""
    dropped: dict[int, str] = {}
    said: dict[str, tuple[Diagnostic, ...]] = {}     # why a file's part was dropped
    paths = [one.path for one in units]
    # each group's edits in each file it touches, in that file's offsets (only those files:
    # a table of every group by every file grew with the square of the number of files)
    parts = [{path: set(part.edits) for path, part in
              program_parts(program, PassOutput(group.edits), paths).items() if part.edits}
             for group in output.groups]
    touching: dict[str, list[int]] = {}
    for number, local in enumerate(parts):
        for path in local:
            touching.setdefault(path, []).append(number)
    from s2s.analysis.omp.device_code import device_ranges  # (a run with edits only)
    device = {one.path: device_ranges(one.model) for one in units}
    while True:
        out = {}
        split = program_parts(program, output, paths, skip=dropped)
        work = [(one.path, one.source, split[one.path], flags[one.path],
                 includers.get(one.path, ()), device[one.path]) for one in units]
        for item, check in zip(work, parallel.gathered(_check_one, work, jobs), strict=True):
            out[item[0]] = (item[2], check)
        newly = {}
        for path, (_part, check) in out.items():
            kept = set(check.edits)
            for number in touching.get(path, ()):
                if number not in dropped and not parts[number][path] <= kept:
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
        for path in parts[number]:
            if path != failed_in:
                part, check = out[path]
                note = Diagnostic.warning(f"{group.label} is left as written: its edits in "
                                          f"{failed_in} do not compile", group.invalid_id)
                out[path] = (part, replace(check, diagnostics=check.diagnostics + (note,),
                                           incomplete=True))
    return out, tuple(sorted(dropped))


def _check_one(item: tuple) -> CheckedEdits:
    return checked_output(*item)


def program_parts(program: Program, output: PassOutput, paths: list[str],
                  skip: dict[int, str] | None = None) -> dict[str, PassOutput]:
    """The part of a whole-program pass's output that belongs to each of ``paths``, in that
    file's offsets: its edits and groups (less the groups numbered in ``skip``), the
    diagnostics located in it (those located nowhere go with the first file, as do the
    counts). One pass over the output for all files: a pass per file made a run over many
    files quadratic."""
    skip = skip or {}
    skipped = {e for number in skip for e in output.groups[number].edits}

    def split(edits) -> dict[str, list[Edit]]:
        out: dict[str, list[Edit]] = {}
        for edit in edits:
            if edit in skipped:
                continue
            where, offset = program.locate(edit.offset)
            out.setdefault(where, []).append(replace(edit, path=where, offset=offset))
        return out

    def moved(diagnostic: Diagnostic) -> Diagnostic:
        location = diagnostic.location
        if location is not None and location.offset is not None:
            location = replace(location, offset=program.locate(location.offset)[1])
        return replace(diagnostic, location=location, notes=tuple(map(moved, diagnostic.notes)))

    edits = split(output.edits)
    groups: dict[str, list] = {path: [] for path in paths}
    for number, group in enumerate(output.groups):
        if number in skip:
            continue
        at = program.local_span(group.at)
        for where, local in split(group.edits).items():
            if where in groups:
                groups[where].append(replace(group, edits=tuple(local), at=at))
    diagnostics: dict[str, list[Diagnostic]] = {path: [] for path in paths}
    for diagnostic in output.diagnostics:
        location = diagnostic.location
        where = location.file if location is not None else paths[0] if paths else None
        if where in diagnostics:
            diagnostics[where].append(moved(diagnostic))
    return {path: PassOutput(tuple(edits.get(path, ())), tuple(diagnostics[path]),
                             tuple(groups[path]), output.check_compiles,
                             output.counts if index == 0 else ())
            for index, path in enumerate(paths)}
