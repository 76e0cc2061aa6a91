"""``s2s report FILE... -o report.html``: the review page of what the passes would change.

OpenMP files are analysed as one program by ``omp``; each CUDA file is rewritten by each of
``transfers``, ``fuse`` and ``mgpu`` on its own (three alternative rewrites of the original),
unless ``--passes`` names fewer. Nothing is rewritten on disk: the page shows, per file and
pass, the same edit set ``--diff`` would print (:mod:`s2s.printers.html`). OpenMP sections
count the copies before and after (:mod:`s2s.cli.report_omp`; measured too with ``--run``).
Diagnostics go to stderr as for every command; exit 1 when a file failed (or ``--run`` found
the two versions to differ), 0 otherwise.
"""

from __future__ import annotations

import time

from s2s.cli import report_omp
from s2s.cli.command_options import add_report_options  # noqa: F401  (its home before)
from s2s.cli.common import Console, report_results, verbose_line
from s2s.cli.verify_cmd import program_args
from s2s.diagnostics import DiagnosticPrinter, UsageError
from s2s.driver import FileResult, RunOptions, Success, exit_code, parse_options_for, process_each
from s2s.frontend.core.parse import detect_language
from s2s.frontend.extract import load
from s2s.output import write_output
from s2s.printers import figures as draw
from s2s.printers.html import Section, render
from s2s.transform import registry
from s2s.transform import transfers as transfers_pass
from s2s.whole_program import process_program
from s2s.wrapper.config import ConfigProblem, parse_pass_list

CUDA_PASSES = ("transfers", "fuse", "mgpu")


def run_report(args, options: RunOptions, printer: DiagnosticPrinter, console: Console,
               extra_flags: tuple[str, ...] = ()) -> int:
    if args.devices < 1:
        raise UsageError("--devices must be at least 1")
    wanted = _passes(args.passes)
    cuda = [f for f in args.files if _language(f, args) == "cuda"]
    openmp = [f for f in args.files if f not in cuda]
    sections: list[Section] = []
    said = []
    if openmp and "omp" in wanted:
        console.step("report", f"analysing the OpenMP program of {len(openmp)} file"
                     + ("s" if len(openmp) != 1 else ""))
        program = process_program(openmp, options, registry.get("omp"))
        start = time.perf_counter()
        traffic = report_omp.program_traffic_of(program)
        for result in program:
            sections.append(_omp_section(result))
            if traffic is not None:
                report_omp.add_static(sections[-1], *traffic)
            _verbose(sections[-1], console, start)
            start = time.perf_counter()
        if args.run or args.args is not None:
            start = time.perf_counter()
            console.step("report", "--run: building and running the original and the "
                         "rewritten program")
            said = report_omp.add_measured(sections, openmp, options, program_args(args.args or ""),
                                           extra_flags, args.timeout)
            if console.verbose:
                console.status(f"--run: built and ran both versions in "
                               f"{time.perf_counter() - start:.3f} s")
    if cuda and (args.run or args.args is not None) and not console.quiet:
        console.status("--run measures OpenMP programs; for the CUDA files, s2s verify runs "
                       "both versions")
    work = [(path, name) for path in cuda for name in CUDA_PASSES if name in wanted]
    for (path, name), result in zip(work, process_each(
            [(path, registry.get(name)) for path, name in work], options), strict=True):
        console.step("report", f"{name} on {path}")
        start = time.perf_counter()
        sections.append(_cuda_section(name, result, options, args.devices))
        _verbose(sections[-1], console, start)
    results: list[FileResult] = [s.result for s in sections]
    report_results(results, printer, console)
    printer.emit_all(said)
    console.step("report", "writing the page")
    page = render(sections, args.title).encode("utf-8", "backslashreplace")  # odd file names
    target = args.output
    write_output(target, page, make_parents=True)   # InputError: printed, exit 1
    if not console.quiet:
        console.status(f"{target}: {len(sections)} section{'s' if len(sections) != 1 else ''} "
                       f"of {len(args.files)} file{'s' if len(args.files) != 1 else ''}")
    return max(exit_code(results), int(any(d.is_error for d in said)))


def _verbose(section: Section, console: Console, start: float) -> None:
    """``-v``: the pass's plan and stage times, then the section's summary and pictures."""
    if console.verbose:
        what = f"s2s {section.command}: " + "; ".join(section.summary[1:])  # [0]: the edits
        if section.figures:
            what += f"; {len(section.figures)} picture{'s' if len(section.figures) != 1 else ''}"
        verbose_line(section.result, console, what,
                     (("summary and pictures", time.perf_counter() - start),))


def _passes(text: str | None) -> tuple[str, ...]:
    if text is None:
        return ("omp", *CUDA_PASSES)
    try:
        names = parse_pass_list(text)
    except ConfigProblem as error:
        raise UsageError(str(error)) from None
    unknown = [n for n in names if registry.get(n) is None]
    if unknown or not names:
        raise UsageError(f"--passes {text!r}: s2s report shows omp, transfers, fuse and mgpu")
    return names


def _language(path: str, args) -> str:
    return args.language or detect_language(path)


def _edits(result: FileResult) -> int:
    if isinstance(result, Success) and result.change is not None:
        return len(result.change.edits)
    return 0


def _omp_section(result: FileResult) -> Section:
    section = Section(result.path, "omp", result)
    counts = ", ".join(f"{n} {what}" for what, n in getattr(result, "counts", ()))
    section.summary.append(f"{_edits(result)} edits" + (f"; {counts}" if counts else ""))
    return section


def _cuda_section(name: str, result: FileResult, options: RunOptions, devices: int) -> Section:
    section = Section(result.path, name, result)
    section.summary.append(f"{_edits(result)} edits")
    if not isinstance(result, Success):
        return section
    loaded = result.loaded
    if name == "transfers":
        plans, _ = transfers_pass.plan_file(loaded)
        if plans:
            section.summary.append(
                f"cudaMemcpy calls {sum(p.copies_before for p in plans)} -> "
                f"{sum(p.copies_after for p in plans)}, cudaMalloc calls "
                f"{sum(p.device_allocs_before for p in plans)} -> "
                f"{sum(p.device_allocs_after for p in plans)}, host allocations "
                f"{sum(p.host_allocs_before for p in plans)} -> "
                f"{sum(p.host_allocs_after for p in plans)}")
        section.figures = draw.transfer_figures(loaded)
    elif name == "fuse":
        before = len(loaded.model.launches)
        after = before
        if result.change is not None and result.change.changed:
            rewritten = load(result.path, parse_options_for(options, result.path),
                             source=result.change.after)
            after = len(rewritten.model.launches) if rewritten.model is not None else before
        section.summary.append(f"kernel launches in the source {before} -> {after}")
        section.figures = draw.fusion_figures(loaded)
    elif name == "mgpu":
        section.summary.append(f"{len(loaded.model.launches)} launches partitioned over the "
                               f"runtime's devices (pictures: {devices} devices)")
        section.figures = draw.partition_figures(loaded, devices)
    return section
