"""``--format json`` of every subcommand: one versioned envelope, per-file results.

The envelope (``s2s``: tool version, ``schema_version``, ``command``, ``files``, and per
command ``summary`` or ``programs``) is described by the JSON Schema shipped beside this
module (:data:`SCHEMA_FILE`); the tests validate every output against it. A rewriting
command lists each file's edits exactly as they are applied: file, byte range, line and
column, the old and the new text, the group they stand or fall with, and the pass's
explanations of them. Bump :data:`SCHEMA_VERSION`'s major number when a field changes meaning
or goes away; adding a field is a minor change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from s2s import __version__
from s2s.diagnostics import Diagnostic
from s2s.driver import FileResult, Skipped, Success
from s2s.printers.explain import Explained, Lines, explain, is_explanation

SCHEMA_VERSION = "1.1"
SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "s2s-output.schema.json"

#: which diagnostics a printer shows (the printer's --silence and --explain filter)
Shown = Callable[[Diagnostic], bool]


def load_schema() -> dict:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def envelope(command: str, files: list[dict], **extra) -> dict:
    return {"s2s": __version__, "schema_version": SCHEMA_VERSION, "command": command,
            "files": files, **extra}


def file_entry(result: FileResult, shown: Shown) -> dict:
    """What every command says of a file: its path, status and diagnostics."""
    entry: dict = {"path": result.path, "status": result.status,
                   "diagnostics": [d.to_json() for d in result.diagnostics if shown(d)]}
    if isinstance(result, Skipped):
        entry["reason"] = result.reason
    return entry


def rewrite_entry(result: FileResult, shown: Shown) -> dict:
    """A file's entry for a rewriting command: the edits applied and what explains each."""
    entry = file_entry(result, shown)
    if not isinstance(result, Success):
        return entry
    change = result.change
    entry["changed"] = bool(change is not None and change.changed)
    entry["incomplete"] = result.incomplete
    entry["counts"] = dict(result.counts)
    edits, explained = file_edits(result)
    entry["edits"] = edits
    entry["explanations"] = [n.to_json() for n in explained.unattached]
    entry["generated"] = [generated_entry(result, change) for change in result.generated]
    return entry


def generated_entry(result: Success, change) -> dict:
    """A file generated beside ``result``'s source: its edits (one, for mgpu's kernel table)
    with the offsets of the file as it is (empty: created)."""
    lines = Lines.of(change.before)
    why = f"generated beside {result.path}, which includes it"
    records = [edit_record(edit, change.before, lines, None, [why]) for edit in change.edits]
    return {"path": change.path, "created": change.created, "changed": change.changed,
            "edits": records}


def edit_record(edit, source: bytes, lines: Lines, group: str | None,
                explanation: list[str]) -> dict:
    """One edit as the JSON lists it: where (bytes, line and column of ``source``), the old
    and the new text, its group and what explains it."""
    line, column = lines.line_col(edit.offset)
    end_line, end_column = lines.line_col(edit.end)
    return {
        "file": edit.path, "offset": edit.offset, "length": edit.length,
        "start": {"line": line, "column": column},
        "end": {"line": end_line, "column": end_column},
        "old": source[edit.offset:edit.end].decode("utf-8", errors="replace"),
        "new": edit.text, "group": group, "explanation": explanation,
    }


def file_edits(result: Success) -> tuple[list[dict], Explained]:
    """The records of ``result``'s applied edits and how its explanations attach to them."""
    change = result.change
    edits = change.edits if change is not None else ()
    source = change.before if change is not None else result.loaded.source
    lines = Lines.of(source)
    notes = [d for d in result.diagnostics if is_explanation(d)
             and d.location is not None and d.location.file == result.path]
    model = result.loaded.model
    scopes = tuple((f.span.start, f.span.end) for f in (*model.functions, *model.kernels)
                   if f.span.file == result.path) if model is not None else ()
    explained = explain(edits, notes, lines, result.groups, scopes)
    records = [edit_record(edit, source, lines, explained.group_of[index],
                           [n.message for n in explained.per_edit[index]])
               for index, edit in enumerate(edits)]
    return records, explained


def rewrite_summary(results: Iterable[FileResult], counts: dict[str, int]) -> dict:
    results = list(results)
    changed = sum(isinstance(r, Success) and r.change is not None and r.change.changed
                  for r in results)
    return {"files": len(results), "changed": changed,
            "failed": sum(r.status == "failed" for r in results), "counts": counts}


def dumps(document: dict) -> str:
    return json.dumps(document, indent=1, ensure_ascii=True) + "\n"
