"""``s2s inspect``: what the front end found, as tables (rich) or JSON for tools."""

from __future__ import annotations

import json
import sys
from dataclasses import fields, replace

from s2s.analysis.kernel.access import analyze_unit
from s2s.cli.common import Console, plural, report_results, verbose_line
from s2s.diagnostics import Diagnostic, DiagnosticPrinter, Location
from s2s.driver import Failed, FileResult, RunOptions, Success, exit_code, process_files
from s2s.model import TranslationUnit, to_json
from s2s.model.serialize import MAX_JSON_DEPTH, Cut
from s2s.model.span import SourceSpan
from s2s.printers import plain_table
from s2s.printers.json_doc import envelope, file_entry

TABLES = ("kernels", "launches", "api", "allocations", "directives", "functions")


#: the model's fields the tables (and ``-v``) show
TABLE_FIELDS = frozenset({"kernels", "device_functions", "launches", "api_calls", "allocations",
                          "directives", "functions"})


def shown_fields(form: str, access: bool) -> frozenset[str]:
    """The fields of the model ``s2s inspect`` prints in ``form`` (the JSON document holds
    every field not marked ``json: False``; ``--access`` analyses the kernel bodies): the
    only ones extracted (issue 30: a big file's other facts were most of its time and peak
    memory)."""
    from s2s.model.unit import CALL_ARGUMENTS
    from s2s.model.unit import TranslationUnit as Unit

    names = TABLE_FIELDS if form == "text" else frozenset(
        f.name for f in fields(Unit) if f.metadata.get("json", True)) | {CALL_ARGUMENTS}
    return names | {"kernel_bodies"} if access else names


def run_inspect(args, options: RunOptions, printer: DiagnosticPrinter, console: Console) -> int:
    options = replace(options, shown=shown_fields(args.format, getattr(args, "access", False)))
    results: list[FileResult] = []
    with console.progress(len(args.files)) as advance:
        for path, result in zip(args.files, process_files(args.files, options), strict=True):
            results.append(result)
            advance(path)
            if console.verbose:
                verbose_line(result, console, _found(result))
            if args.format == "text":
                report_results([result], printer, console)
                if isinstance(result, Success):
                    print_tables(result.loaded.model, console, args.only or TABLES)
                    if getattr(args, "access", False):
                        print_access(result.loaded.model, console)
    if args.format == "json":
        document, results = json_report(results, getattr(args, "access", False))
        report_results(results, printer, console)
        json.dump(document, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif not console.quiet:
        _print_summary(results, printer, console)
    return exit_code(results)


def json_report(results: list[FileResult], access: bool = False
                ) -> tuple[dict, list[FileResult]]:
    """The versioned envelope of :mod:`s2s.printers.json_doc` with each file's model, and the
    results with a ``json-depth`` warning on each file whose model nests too deeply for JSON
    readers (the deepest parts are left out of the document)."""
    files, warned = [], []
    for result in results:
        model, cut = None, Cut()
        if isinstance(result, Success):
            model = to_json(result.loaded.model, cut)
            if cut.count:
                result = replace(result, diagnostics=result.diagnostics + (Diagnostic.warning(
                    f"the model nests deeper than {MAX_JSON_DEPTH} levels; {plural(cut.count, 'part')} "
                    "left out of the JSON document", "json-depth",
                    Location(result.path, 1, 1, 0)),))
        entry = file_entry(result, lambda d: True)
        if model is not None:
            entry["model"] = model
            if access:
                entry["access"] = [m.to_dict() for m in analyze_unit(
                    result.loaded.model.kernel_bodies)]
        files.append(entry)
        warned.append(result)
    return envelope("inspect", files), warned


def _found(result: FileResult) -> str:
    """``-v``: how much the front end found in the file."""
    if not isinstance(result, Success):
        return ""
    model = result.loaded.model
    tables = (("kernel", model.kernels), ("launches", model.launches),
              ("API call", model.api_calls), ("allocation", model.allocations),
              ("directive", model.directives), ("function", model.functions))
    return ", ".join(plural(len(items), name) if name != "launches" else
                     plural(len(items), "launch", name) for name, items in tables) + " found"


def _print_summary(results: list[FileResult], printer: DiagnosticPrinter, console: Console) -> None:
    failed = sum(isinstance(r, Failed) for r in results)
    line = f"{len(results)} file{'s' if len(results) != 1 else ''} inspected"
    if failed:
        line += f", {failed} failed"
    extra = printer.summary()
    if extra:
        line += f"; {extra}"
    console.status(line)


def _where(span: SourceSpan) -> str:
    text = f"{span.line}:{span.column}"
    if span.macro:
        text += f" (macro {span.macro})"
    if span.template:
        text += f" (template {span.template})"
    return text


def _count(items, name: str) -> str:
    return f"{len(items)} {name}" if items else ""


def print_tables(model: TranslationUnit, console: Console, only) -> None:
    shown = [(f"{model.path}: {title}", headers, rows)
             for title, headers, rows in _tables(model, only) if rows]
    for title, headers, rows in shown:
        _print_table(console, title, headers, rows)
    if not shown:
        console.out.print(f"{model.path}: no kernels, launches, allocations or directives found",
                          markup=False)


def _print_table(console: Console, title: str, headers: tuple[str, ...], rows: list) -> None:
    """One table as rich lays it out; on a console without colour, by the plain printer
    (the same text, without rich's cost per cell: issue 30) unless a cell needs rich."""
    out = console.out
    if out.color_system is None and not out.legacy_windows and \
            out.encoding.lower().startswith("utf"):
        text = plain_table.render(title, list(headers), rows, out.width)
        if text is not None:
            out.file.write(text)
            out.file.flush()
            return
    from rich.table import Table

    table = Table(title=title, title_justify="left", expand=False)
    for column in headers:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    out.print(table)


def _tables(model: TranslationUnit, only):
    """(title, column headers, rows of cell texts) of each table ``only`` asks for."""
    if "kernels" in only:
        yield "kernels", ("kernel", "params", "uses", "shared", "sync/atomic/warp", "calls",
                          "at"), [_kernel_row(k) for k in model.kernels + model.device_functions]
    if "launches" in only:
        yield "launches", ("kernel", "grid", "block", "shared", "stream", "args", "in", "at"), [
            [launch.kernel + (f"<{launch.template_args}>" if launch.template_args else ""),
             launch.grid.text, launch.block.text,
             launch.shared_bytes.text if launch.shared_bytes else "",
             launch.stream.text if launch.stream else "",
             ", ".join(a.text for a in launch.args), launch.function, _where(launch.span)]
            for launch in model.launches]
    if "api" in only:
        yield "CUDA API calls", ("call", "category", "args", "in", "at"), [
            [call.name, call.category, ", ".join(a.text for a in call.args), call.function,
             _where(call.span)] for call in model.api_calls]
    if "allocations" in only:
        yield "host allocations", ("array", "kind", "element", "count", "bytes", "in", "at"), [
            [a.name, a.kind, a.element_type,
             a.count.text if a.count else " x ".join(d.text for d in a.dims),
             a.size_bytes.text if a.size_bytes else "", a.function or "(global)", _where(a.span)]
            for a in model.allocations]
    if "directives" in only:
        yield "OpenMP directives", ("#", "directive", "maps", "other clauses", "statement",
                                    "inside", "in", "at"), [
            _directive_row(i, d) for i, d in enumerate(model.directives)]
    if "functions" in only:
        yield "host functions", ("function", "params", "loops", "branches", "calls", "at"), [
            _function_row(f) for f in model.functions]


def _kernel_row(k) -> list[str]:
    params = ", ".join(_param(p) for p in k.params)
    uses = " ".join(sorted({f"{b.var}.{b.component}" if b.component else b.var
                            for b in k.builtins}))
    shared = ", ".join(("extern " if s.extern else "") + s.name
                       + "".join(f"[{d}]" for d in s.dims) for s in k.shared_arrays)
    counts = f"{len(k.syncthreads)}/{len(k.atomics)}/{len(k.warp_intrinsics)}"
    name = k.name if k.is_global else f"{k.name} (__device__)"
    return [name, params, uses, shared, counts, ", ".join(k.device_functions_called),
            _where(k.span)]


def _directive_row(i: int, d) -> list[str]:
    maps = "; ".join(_map(m) for m in d.maps)
    others = " ".join(c.name for c in d.clauses if c.name not in ("map", "to", "from"))
    stmt = f"lines {d.stmt_span.line}-{d.stmt_span.end_line}" if d.stmt_span else ""
    inside = f"#{d.parent}" if d.parent is not None else ""
    return [str(i), d.name, maps, others, stmt, inside, d.function or "", _where(d.span)]


def _function_row(f) -> list[str]:
    callees = list(dict.fromkeys(c.name for c in f.calls))
    return [f.name, str(len(f.params)), str(len(f.loops)), str(len(f.branches)),
            ", ".join(callees[:12]) + (" ..." if len(callees) > 12 else ""), _where(f.span)]


def _param(p) -> str:
    flags = ("const " if p.pointee_const else "") + ("restrict " if p.restrict else "")
    return f"{flags}{p.name}"


def _map(m) -> str:
    items = ", ".join(i.text for i in m.items)
    mods = ", ".join(m.modifiers)
    kind = m.map_type if m.clause == "map" else m.clause
    return f"{mods + ', ' if mods else ''}{kind}: {items}"


#: Longest map text shown whole in the table; longer maps show their first disjunct.
MAP_TEXT_LIMIT = 600


def print_access(model: TranslationUnit, console: Console) -> None:
    """One table per kernel: each pointer parameter's read and write maps, must/may."""
    from rich.markup import escape
    from rich.table import Table

    for access in analyze_unit(model.kernel_bodies):
        verdict = "partitionable" if access.partitionable else f"NOT partitionable: {access.reason}"
        t = Table(title=escape(f"{model.path}: access of {access.kernel} ({verdict})"),
                  title_justify="left", expand=False)
        for column in ("array", "mode", "must/may", "map"):
            t.add_column(column, overflow="fold")
        for array in access.arrays:
            for mode, text, exact in (("read", array.read, array.read_exact),
                                      ("write", array.write, array.write_exact)):
                if text is not None:
                    t.add_row(array.name, mode, "must" if exact else "may",
                              escape(_map_text(text)))
            if array.read is None and array.write is None:
                t.add_row(array.name, "-", "", "not accessed")
        console.out.print(t)
        for note in access.notes:
            console.out.print(f"  note: {note}", markup=False)


def _map_text(text: str) -> str:
    if len(text) <= MAP_TEXT_LIMIT:
        return text
    pieces = text.split("; ")
    return f"{pieces[0]}; ... }} ({len(pieces)} disjuncts, --format json shows all)"
