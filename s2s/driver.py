"""Per-file processing with per-file results (as LibCST's codemod runner).

Every input file ends as exactly one of :class:`Success`, :class:`Skipped` or :class:`Failed`;
an exception from one file becomes that file's Failure and the run goes on with the next.
A pass is a pure function from a loaded file to the edits it wants and its diagnostics; the
driver owns reading, parsing and the single edit set.
"""

from __future__ import annotations

import functools
import os
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from s2s import deep_stack, gc_pause, parallel
from s2s.diagnostics import Diagnostic, InputError, InternalError, Location, S2SError
from s2s.edits import EditSet, beside_name
from s2s.frontend.core import parse_reuse
from s2s.frontend.core.parse import ParseOptions, check_parse, detect_language
from s2s.frontend.extract import Loaded
from s2s.frontend.fact_cache import cached_load, parse_errors, second_opinion
from s2s.frontend.openmp import clang_check
from s2s.output import FileChange
from s2s.transform.check import CheckedEdits, EditGroup, checked_edits, introduced
from s2s.transform.nvcc_check import enabled_by_environment, find_nvcc, nvcc_errors


@dataclass(frozen=True)
class PassOutput:
    """What a pass returns for one file: edits to make and diagnostics to show.

    ``edits`` are all of them; ``groups`` may partition them into parts that stand or fall
    together. With ``check_compiles`` the driver parses the rewritten file before anything is
    emitted and drops the groups (edits in no group form one more) whose rewrite does not
    parse (:mod:`s2s.transform.check`).
    """

    edits: tuple = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    groups: tuple[EditGroup, ...] = ()
    check_compiles: bool = False
    #: (what, how many) for the run's summary line: ("left unmapped", 2)
    counts: tuple[tuple[str, int], ...] = ()
    #: the pass again, told which of these ``groups`` (their indices) the check dropped: an
    #: output whose plan leaves their subjects to a fallback and whose counts say so
    #: (:func:`settled`); None: the counts do not depend on the check
    replan: Callable[[tuple[int, ...]], PassOutput] | None = field(default=None, compare=False)


#: A pass maps a successfully loaded file to its output.
Pass = Callable[[Loaded], PassOutput]


@dataclass(frozen=True)
class Success:
    path: str
    loaded: Loaded
    change: FileChange | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    #: part of the rewrite was dropped because it did not compile (the file exits 1)
    incomplete: bool = False
    counts: tuple[tuple[str, int], ...] = ()
    #: the pass's groups of edits in this file (labels for the JSON, SARIF and HTML printers)
    groups: tuple[EditGroup, ...] = ()
    #: (stage, seconds) of this file's work, for ``-v``: ("parse", 0.31), ("pass", 0.08), ...
    timings: tuple[tuple[str, float], ...] = ()
    #: the files the pass generates beside this one (mgpu's kernel table), made by its edits
    #: of other paths; written, shown and counted with ``change``
    generated: tuple[FileChange, ...] = ()

    status = "ok"

    @property
    def changes(self) -> tuple[FileChange, ...]:
        """This file's change and those of the files generated with it, in that order."""
        return ((self.change,) if self.change is not None else ()) + self.generated

    @property
    def changed(self) -> bool:
        """Some file would be written: the source or a file generated beside it."""
        return any(change.changed for change in self.changes)


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str
    diagnostics: tuple[Diagnostic, ...] = ()
    #: (what, how many) for the run's summary: a skipped header's target constructs are
    #: left unmapped, and the summary must say so
    counts: tuple[tuple[str, int], ...] = ()

    status = "skipped"


@dataclass(frozen=True)
class Failed:
    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    traceback: str | None = None

    status = "failed"


FileResult = Success | Skipped | Failed


@dataclass
class RunOptions:
    """Options shared by every subcommand that reads files."""

    parse: ParseOptions = field(default_factory=ParseOptions)
    flags_for: Callable[[str], tuple[str, ...]] | None = None
    #: worker processes that parse and extract files at once (``-j``; :mod:`s2s.parallel`)
    jobs: int = 1
    #: the model's fields a run without a pass prints (``s2s inspect``): only those are
    #: extracted (:func:`s2s.frontend.extract.load`); None: all of them
    shown: frozenset[str] | None = None


def process_file(path: str, options: RunOptions, run_pass: Pass | None = None,
                 source: bytes | None = None) -> FileResult:
    """Load ``path`` and run ``run_pass`` on it; never raises for problems with this file.

    ``source`` stands in for the file's bytes (the output of an earlier pass, when passes are
    chained); the file's name still decides its language and where its includes are found.
    The work runs on a deep-stack thread (:mod:`s2s.deep_stack`): deeply nested code is an
    error of this file, never a crash of the process; cyclic garbage collection is off
    meanwhile (:mod:`s2s.gc_pause`).
    """
    return gc_pause.call(deep_stack.call, load_and_run, path, options, run_pass, source)


def process_loaded(loaded: Loaded, options: RunOptions, run_pass: Pass) -> FileResult:
    """``run_pass`` on a file already loaded with these options (an earlier pass of a chain
    left its bytes as they were: one parse and extraction serves every pass, issue 30 item 1);
    as :func:`process_file`, on a deep-stack thread, never raising for this file."""
    return gc_pause.call(deep_stack.call, _run_loaded, loaded, options, run_pass)


def _run_loaded(loaded: Loaded, options: RunOptions, run_pass: Pass) -> FileResult:
    try:
        return run_on_loaded(loaded, parse_options_for(options, loaded.path), run_pass)
    except Exception as error:  # (as load_and_run)
        return failed_by(loaded.path, error)


def load_and_run(path: str, options: RunOptions, run_pass: Pass | None,
                  source: bytes | None, skip_without: bytes | None = None) -> FileResult:
    """(``skip_without``: see :func:`s2s.frontend.extract.load`.)"""
    deep_stack.forget_walks()
    try:
        parse_options = parse_options_for(options, path)
        start = time.perf_counter()
        loaded = cached_load(path, parse_options, source, skip_without=skip_without,
                             shown=options.shown if run_pass is None else None)
        deep_stack.check_walks()
        if loaded.model is None:
            return Failed(path, loaded.diagnostics)
        parsed = (("parse", time.perf_counter() - start),)
        if run_pass is None:
            return Success(path, loaded, None, loaded.diagnostics, timings=parsed)
        result = run_on_loaded(loaded, parse_options, run_pass)
        deep_stack.check_walks()
        return replace(result, timings=parsed + result.timings)
    except Exception as error:  # (KeyboardInterrupt and SystemExit are no Exception: they go on)
        return failed_by(path, error)


def parse_options_for(options: RunOptions, path: str) -> ParseOptions:
    """The parse options of ``path``: the run's, plus its flags from ``-p BUILD_DIR``."""
    if options.flags_for is None:
        return options.parse
    return replace(options.parse, user_flags=options.parse.user_flags + options.flags_for(path))


def file_options(options: RunOptions, path: str) -> RunOptions:
    """The options of ``path`` alone (its flags from ``-p`` looked up now), for a worker."""
    return RunOptions(parse_options_for(options, path), shown=options.shown)


def failed_by(path: str, error: Exception) -> Failed:
    """``path``'s result when processing it raised ``error`` (call inside the ``except``:
    a bug in s2s keeps its traceback); the run goes on with the other files."""
    if isinstance(error, S2SError):
        return Failed(path, (error.diagnostic,))
    if deep_stack.is_recursion(error):
        return Failed(path, (InputError(
            f"code nested too deeply for s2s (more than about {deep_stack.RECURSION_LIMIT} "
            "levels); the file is left as it is", Location(path, 1, 1, 0),
            id="nesting-too-deep").diagnostic,))
    internal = InternalError(f"internal error while processing this file: "
                             f"{type(error).__name__}: {error}")
    return Failed(path, (internal.diagnostic,), traceback.format_exc())


def run_on_loaded(loaded: Loaded, parse_options: ParseOptions, run_pass: Pass,
                  includers: tuple[tuple[str, bytes], ...] = ()) -> Success:
    """``run_pass`` on a loaded file: its checked edits applied, its diagnostics
    (``includers``: see :func:`checked_output`)."""
    start = time.perf_counter()
    output = run_pass(loaded)
    planned = time.perf_counter()

    device: list = []       # the model's device ranges, worked out once for every round

    def check(out: PassOutput) -> tuple[CheckedEdits, tuple[int, ...]]:
        if out.edits and not device:
            device.append(_device_ranges(loaded.model))
        checked = checked_output(loaded.path, loaded.source, out, parse_options, includers,
                                 device[0] if out.edits else None)
        return checked, dropped_groups(out, checked)
    output, checked, rounds = settled(output, check)
    checked = with_earlier(checked, rounds)
    change = apply_edits(loaded.path, loaded.source, checked.edits)
    generated = generated_changes(loaded.path, checked.edits)
    timings = (("pass", planned - start), ("check", time.perf_counter() - planned))
    return Success(loaded.path, loaded, change, loaded.diagnostics + tuple(output.diagnostics)
                   + checked.diagnostics, checked.incomplete, output.counts, output.groups,
                   timings, generated)


#: rounds of replanning after dropped groups (each refuses one subject more; a bound all the same)
REPLAN_ROUNDS = 8


def settled(output: PassOutput, check: Callable[[PassOutput], tuple[object, tuple[int, ...]]]
            ) -> tuple[PassOutput, object, tuple[object, ...]]:
    """The pass's output and its check once no group the check drops changes what the
    output claims: while the check (``check(output)``: its result and the indices of the
    groups it dropped) drops groups, the pass replans without them (``PassOutput.replan``: a
    data region whose rewrite does not compile leaves its constructs to the safety net, so
    the summary counts what is left after the check, never what was planned before it;
    issue 28). Also the checks of the earlier rounds (their warnings say why the plan
    changed)."""
    checked, gone = check(output)
    rounds = []
    while output.replan is not None and gone and len(rounds) < REPLAN_ROUNDS:
        rounds.append(checked)
        output = output.replan(gone)
        checked, gone = check(output)
    return output, checked, tuple(rounds)


def dropped_groups(output: PassOutput, checked: CheckedEdits) -> tuple[int, ...]:
    """Indices of the output's groups that the check of one file dropped (some edit not
    kept)."""
    kept = set(checked.edits)
    return tuple(number for number, group in enumerate(output.groups)
                 if group.edits and not set(group.edits) <= kept)


def with_earlier(checked: CheckedEdits, rounds) -> CheckedEdits:
    """``checked`` with the warnings of the earlier rounds' checks in front (once each), and
    incomplete when a round dropped something."""
    if not rounds:
        return checked
    said: list[Diagnostic] = []
    for one in (*rounds, checked):
        said += [d for d in one.diagnostics if d not in said]
    return replace(checked, diagnostics=tuple(said), incomplete=True)


def generated_changes(path: str, edits: Iterable) -> tuple[FileChange, ...]:
    """The changes the edits of paths other than ``path`` make: the files a pass generates
    beside it (their current bytes read here; a file that does not exist yet is empty and
    ``created``)."""
    edit_set = edits if isinstance(edits, EditSet) else EditSet(edits)
    out = []
    earlier = {os.path.abspath(p): text for p, text in parse_reuse.overlay()}
    for other in edit_set.paths:
        if other == path:
            continue
        if os.path.abspath(other) in earlier:   # (an earlier pass of the chain generated it)
            before = earlier[os.path.abspath(other)]
            out.append(FileChange(other, before, edit_set.apply(other, before),
                                  edit_set.for_path(other), not os.path.exists(other)))
            continue
        try:
            with open(other, "rb") as handle:
                before, created = handle.read(), False
        except FileNotFoundError:
            before, created = b"", True
        except OSError as error:
            raise InputError(f"cannot read {other}: {error.strerror or error}",
                             id="write-failed") from error
        out.append(FileChange(other, before, edit_set.apply(other, before),
                              edit_set.for_path(other), created))
    return tuple(out)


def beside(path: str, edits: Iterable) -> tuple[tuple[str, bytes], ...]:
    """(path, bytes) of the files that ``edits`` (a pass's, for ``path``) generate beside it,
    for a check of the rewrite to see them before they are written."""
    return tuple((c.path, c.after) for c in generated_changes(path, edits))


def _device_ranges(model):
    """:func:`s2s.analysis.omp.device_code.device_ranges` (imported for a file with edits
    only: a run with nothing to change plans nothing and imports no analysis)."""
    from s2s.analysis.omp import device_code
    return device_code.device_ranges(model)


def _outside(device, edits) -> bool:
    from s2s.analysis.omp import device_code
    return device_code.outside(device, edits)


def checked_output(path: str, source: bytes, output: PassOutput, options: ParseOptions,
                   includers: tuple[tuple[str, bytes], ...] = (),
                   device: tuple[tuple[int, int], ...] | None = None) -> CheckedEdits:
    """The pass's edits, less the groups whose rewrite does not parse (when it asks).
    ``includers``: (path, bytes) of the files that include ``path``, a project header
    analysed in the context of the first: its rewrite is checked in each of them (it need
    not parse on its own). ``device``: the ranges of ``path`` compiled for the device
    (:func:`s2s.analysis.omp.device_code.device_ranges`; None: not known): clang-16 checks
    the host side alone of a rewrite whose edits lie outside them."""
    if not output.check_compiles:
        return CheckedEdits(tuple(output.edits))
    grouped = {e for g in output.groups for e in g.edits}
    loose = tuple(e for e in output.edits if e not in grouped)
    groups = output.groups + ((EditGroup("the file's other edits", loose),) if loose else ())
    if includers:
        return checked_edits(path, source, groups, functools.partial(
            _errors_in_context, path, includers, options))

    nvcc = _nvcc_for(path, options)
    original: list[list[Diagnostic] | None] = []     # nvcc's errors on the original, once
    earlier = parse_reuse.overlay()   # (files earlier passes of a chain generated: mgpu's table)

    def errors(data: bytes, edits: tuple) -> list[Diagnostic]:
        generated = beside(path, edits)
        # (libclang finds an unsaved file by the name the includer forms: the includer's
        # directory as given, "." for none, joined with the quoted name)
        unsaved = tuple((os.path.join(os.path.dirname(path) or ".", beside_name(p, path)), text)
                        for p, text in generated)
        said = parse_errors(data, path, options, unsaved)
        if said:
            return said
        if nvcc is None:  # (C and C++: clang-16 where it is; CUDA without nvcc: the parse)
            host_only = device is not None and _outside(device, edits)
            return _clang_errors(data, source, path, options, host_only)
        own = {os.path.abspath(p) for p, _ in generated}
        compiled = nvcc_errors(data, path, options.user_flags, options.gpu_arch, nvcc,
                               generated + tuple(f for f in earlier if os.path.abspath(f[0])
                                                 not in own))
        if not compiled:
            return said if compiled is None else compiled
        if not original:
            original.append(nvcc_errors(source, path, options.user_flags, options.gpu_arch, nvcc,
                                        earlier))
        return introduced(compiled, original[0] or (), source, edits)

    checked = checked_edits(path, source, groups, errors)
    return replace(checked, diagnostics=checked.diagnostics + _original_errors(path, original))


def _original_errors(path: str, original: list) -> tuple[Diagnostic, ...]:
    """A warning that nvcc rejects the original itself (its errors were not blamed on the
    rewrite), naming the first error: the rewrite is no worse, but will not build either."""
    if not original or not original[0]:
        return ()
    first = original[0][0]
    where = f" (line {first.location.line})" if first.location else ""
    return (Diagnostic.warning(
        f"nvcc rejects the original file too: {first.message.removeprefix('nvcc: ')}{where}; "
        "the rewrite was checked for errors of its own only", "nvcc-original-error",
        first.location or Location(path, 1, 1, 0)),)


def _errors_in_context(path: str, includers: tuple[tuple[str, bytes], ...],
                       options: ParseOptions, data: bytes, _edits: tuple = ()) -> list[Diagnostic]:
    """libclang's errors on each includer (as it was: its own edits are checked on their
    own) with ``data`` as the text of the header ``path``; the first includer's that fail.
    (``_edits``, what the check tries, as every error callback of checked_edits receives.)"""
    for where, text in includers:   # (one parse each, as a file's own rewrite: check_parse)
        parsed = check_parse(text, where, options, unsaved=((os.path.abspath(path), data),))
        said = [d for d in parsed.diagnostics if d.is_error]
        if said:
            return said
    return []


def _clang_errors(data: bytes, source: bytes, path: str, options: ParseOptions,
                  host_only: bool = False) -> list[Diagnostic]:
    """clang-16's errors on a rewrite libclang accepts (:mod:`s2s.frontend.openmp.clang_check`),
    for C and C++ only; none when clang-16 rejects the original too (then its errors say
    nothing about the rewrite: a missing flag, an extension of the newer libclang).
    ``host_only``: the host side of both (the edits lie outside the device code)."""
    language = options.language or detect_language(path)
    tool = clang_check.identity()
    if tool is None:
        return []
    found = second_opinion(data, path, options, tool + (" host" if host_only else ""),
                           functools.partial(clang_check.checked, data, path, language,
                                             options.user_flags, host_only))
    if found and clang_check.syntax_errors(source, path, language, options.user_flags,
                                           host_only):
        return []
    return found


def _nvcc_for(path: str, options: ParseOptions) -> str | None:
    """The nvcc that checks a CUDA rewrite of ``path`` (item 7 of issue 18), or None: the
    check is off, the file is not CUDA, or there is no nvcc (the libclang parse alone)."""
    if not options.nvcc_check or not enabled_by_environment() \
            or (options.language or detect_language(path)) != "cuda":
        return None
    return find_nvcc(options.toolchain.cuda_path if options.toolchain else None)


def apply_edits(path: str, source: bytes, edits: Iterable) -> FileChange:
    edit_set = edits if isinstance(edits, EditSet) else EditSet(edits)
    return FileChange(path, source, edit_set.apply(path, source), edit_set.for_path(path))


def process_files(paths: Iterable[str], options: RunOptions, run_pass: Pass | None = None,
                  sources: dict[str, bytes] | None = None) -> Iterator[FileResult]:
    """:func:`process_file` for each path (``sources``: bytes standing in for some files),
    yielding each result, in order, as soon as it is known (:func:`process_each`)."""
    return process_each([(path, run_pass) for path in paths], options, sources)


def process_each(work: list[tuple[str, Pass | None]], options: RunOptions,
                 sources: dict[str, bytes] | None = None) -> Iterator[FileResult]:
    """:func:`process_file` for each (path, pass) of ``work``, in order: on ``options.jobs``
    worker processes when more than one (:mod:`s2s.parallel`; each file's flags from ``-p``
    looked up here, in order, so what that says is said once, as with one job)."""
    sources = sources or {}
    if options.jobs <= 1:
        for path, run_pass in work:
            yield process_file(path, options, run_pass, sources.get(path))
        return
    items = [(path, file_options(options, path), run_pass, sources.get(path))
             for path, run_pass in work]
    yield from parallel.ordered_map(_process_one, items, options.jobs)


def _process_one(item: tuple) -> FileResult:
    return process_file(*item)


def exit_code(results: Iterable[FileResult], changes_are_failure: bool = False) -> int:
    """0 = success / nothing to do, 1 = a file failed (or ``--check`` found changes)."""
    code = 0
    for result in results:
        if isinstance(result, Failed) or (isinstance(result, Success) and result.incomplete):
            code = 1
        elif changes_are_failure and isinstance(result, Success) and result.changed:
            code = 1
    return code
