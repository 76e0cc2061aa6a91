"""The OpenMP sections of ``s2s report``: copies before and after, counted and measured.

Statically (always): the program's plan is computed once more over the files analysed
together, its transfer sites and those of the naive per-construct baseline are listed per
file (:mod:`s2s.analysis.omp.traffic`), and their bytes are numbers where the sizes are
compile-time constants of the file (:mod:`s2s.frontend.host.constants`), expressions otherwise.
With ``--run``: the original and the rewrite are built and run on clang-16's host device by
``s2s verify``'s machinery, and the copies ``LIBOMPTARGET_INFO`` reports are shown beside.
"""

from __future__ import annotations

from dataclasses import replace

from s2s.analysis.omp.plan import plan_file
from s2s.analysis.omp.traffic import ByteTotal, Traffic, Transfer, program_traffic, total_bytes
from s2s.diagnostics import Diagnostic, S2SError
from s2s.driver import FileResult, RunOptions, Success
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.host.constants import Constants, file_constants
from s2s.model.program import NameClash, merge_units
from s2s.printers.figures import copy_timeline
from s2s.printers.html import Section, Table
from s2s.transform import registry

STATIC_NOTE = ("before: every target construct copies each array it uses in and back out "
               "(naive per-construct tofrom); after: the plan's data regions, updates and "
               "clauses. A site in a loop copies once per iteration: --run measures that.")


def program_traffic_of(results: list[FileResult]) -> tuple[Traffic, dict[str, Constants]] | None:
    """The transfer sites of the program of ``results`` and each file's constants; None
    when no file loaded or the files cannot form one program."""
    loaded = [r.loaded for r in results if isinstance(r, Success) and r.loaded.model is not None]
    if not loaded:
        return None
    if len(loaded) == 1:
        model, source = loaded[0].model, loaded[0].source
    else:
        try:
            program = merge_units([(one.model, one.source) for one in loaded])
        except NameClash:
            return None
        model, source = program.unit, program.source
    traffic = program_traffic(model, plan_file(model, source))
    constants = {one.path: file_constants(one.path, one.source, one.options or ParseOptions())
                 for one in loaded}
    return traffic, constants


def add_static(section: Section, traffic: Traffic, constants: dict[str, Constants]) -> None:
    """The summary line and the table of transfer sites of ``section``'s file."""
    path = section.path
    table = constants.get(path) or Constants()
    before = [t for t in traffic.before if t.span.file == path]
    after = [t for t in traffic.after if t.span.file == path]
    if not before and not after:
        section.summary.append("no target construct in this file")
        return
    totals = [total_bytes(ts, table.value, table.element, table.whole) for ts in (before, after)]
    section.summary.append(f"transfer sites {totals[0].sites} -> {totals[1].sites}; bytes "
                           f"per pass over every site {_shown(totals[0])} -> {_shown(totals[1])}")
    section.figures.append(copy_timeline(traffic, path))
    rows = [_row("before", t, table) for t in before] + [_row("after", t, table) for t in after]
    section.tables.append(Table("transfer sites (static)", STATIC_NOTE,
                                ("", "line", "array", "direction", "elements", "bytes"), rows))


def _shown(total: ByteTotal) -> str:
    if total.value is not None:
        return f"{total.value:,} B"
    return total.expression


def _row(when: str, transfer: Transfer, table: Constants) -> tuple[str, ...]:
    one = total_bytes([transfer], table.value, table.element, table.whole)
    count = "whole array" if transfer.count == "" else (transfer.count or "unknown")
    return (when, str(transfer.span.line), transfer.array, transfer.direction, count,
            _shown(one))


def add_measured(sections: list[Section], files: list[str], options: RunOptions,
                 args: tuple[str, ...], build_flags: tuple[str, ...], timeout: float
                 ) -> list[Diagnostic]:
    """``--run``: build and run the original and the rewrite (``s2s verify``), and put the
    measured copies in the first section of the program; the diagnostics of a failure."""
    from s2s.verify.differential import VerifyOptions, verify_program

    verify = VerifyOptions(run=options, passes=(("omp", registry.get("omp")),), args=args,
                           timeout=timeout, build_flags=build_flags)
    try:
        verdict = verify_program(files, verify)
    except S2SError as error:
        return [replace(error.diagnostic, message=f"--run: {error.diagnostic.message}")]
    # the pass's warnings are the page's already; what the build and the runs said is new
    said = [d for d in verdict.diagnostics if d.is_error or d.id.startswith("verify-")]
    target = next((s for s in sections if s.path in files), None)
    runs = (verdict.original, verdict.rewritten)
    if target is None or any(r is None or r.copies is None for r in runs):
        if target is not None:
            target.summary.append("measured (--run): not run, see the diagnostics")
        return said
    before, after = (r.copies for r in runs)
    outcome = "same output" if not verdict.differences else \
        f"outputs DIFFER in {len(verdict.differences)} place(s)"
    target.summary.append(
        f"measured (--run, clang-16 host offload, program {' '.join(files)}): "
        f"host-to-device {before.h2d_count} copies / {before.h2d_bytes:,} B -> "
        f"{after.h2d_count} / {after.h2d_bytes:,} B, device-to-host {before.d2h_count} / "
        f"{before.d2h_bytes:,} B -> {after.d2h_count} / {after.d2h_bytes:,} B; {outcome}")
    rows = [(name, str(run.returncode), str(run.copies.h2d_count), f"{run.copies.h2d_bytes:,}",
             str(run.copies.d2h_count), f"{run.copies.d2h_bytes:,}", str(len(run.unmapped)))
            for name, run in (("original", runs[0]), ("rewritten", runs[1]))]
    target.tables.append(Table("measured copies (--run)", "LIBOMPTARGET_INFO of one run of "
                               "each version, built by s2s verify", (
                                   "program", "exit", "h2d copies", "h2d bytes", "d2h copies",
                                   "d2h bytes", "unmapped pointers"), rows))
    return said
