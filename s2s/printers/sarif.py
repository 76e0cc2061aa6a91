"""``--format sarif``: the run as a SARIF 2.1.0 log, for code-scanning tools and review bots.

Every applied edit is one result at the line it changes, level ``note``, rule
``<command>-rewrite``, with the pass's explanation as its message and a ``fixes`` entry that
carries the edit itself (byte offset and length in the original, the inserted text), so a
reviewer sees each suggested directive where it goes and why. Every diagnostic (warnings about
what was left alone and why, errors) is a result of its own id without a fix. Paths are
relative to the current directory under the base ``SRCROOT`` (GitHub code scanning resolves
them against the checkout). Columns count Unicode code points (``columnKind``), as GitHub
expects; byte offsets stay exact in the fixes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from s2s import __version__
from s2s.diagnostics import Diagnostic, Severity
from s2s.driver import FileResult, Success
from s2s.printers.explain import is_explanation
from s2s.printers.json_doc import Shown, file_edits

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SUBSET_SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "sarif-2.1.0-subset.schema.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


class _Columns:
    """Byte columns of one file's lines as code-point columns (SARIF's ``columnKind``)."""

    def __init__(self, source: bytes | None):
        self.lines = source.split(b"\n") if source is not None else None

    def column(self, line: int, byte_column: int) -> int:
        if self.lines is None or not 1 <= line <= len(self.lines):
            return max(byte_column, 1)
        prefix = self.lines[line - 1][:max(byte_column - 1, 0)]
        return len(prefix.decode("utf-8", errors="replace")) + 1


def sarif_log(command: str, results: Iterable[FileResult], shown: Shown, exit_code: int) -> dict:
    """The SARIF log of one run of ``s2s COMMAND``."""
    rules: dict[str, dict] = {}
    out: list[dict] = []
    for result in results:
        source = _source(result)
        columns = _Columns(source)
        if isinstance(result, Success):
            out += _edit_results(command, result, columns, rules)
        for diagnostic in result.diagnostics:
            if is_explanation(diagnostic) or not shown(diagnostic):
                continue
            out.append(_diagnostic_result(diagnostic, result.path, columns, rules))
    run = {
        "tool": {"driver": {"name": "s2s", "version": __version__,
                            "rules": [rules[key] for key in sorted(rules)]}},
        "originalUriBaseIds": {"SRCROOT": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": exit_code != 2, "exitCode": exit_code,
                         "commandLine": f"s2s {command}"}],
        "results": out,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _source(result: FileResult) -> bytes | None:
    if isinstance(result, Success):
        return result.change.before if result.change is not None else result.loaded.source
    return None


def _edit_results(command: str, result: Success, columns: _Columns, rules: dict) -> list[dict]:
    rule = f"{command}-rewrite"
    rules.setdefault(rule, _rule(rule, f"a change s2s {command} suggests"))
    records, _explained = file_edits(result)
    out = []
    for record in records:
        why = "; ".join(record["explanation"])
        what = _what(record)
        message = f"s2s {command} {what}" + (f": {why}" if why else "")
        if record["group"]:
            message += f" (part of {record['group']})"
        region = _region(record["start"]["line"], record["start"]["column"],
                         record["end"]["line"], record["end"]["column"], columns)
        location = _location(record["file"], region)
        replacement = {"deletedRegion": {"byteOffset": record["offset"],
                                         "byteLength": record["length"]},
                       "insertedContent": {"text": record["new"]}}
        out.append({
            "ruleId": rule, "level": "note", "message": {"text": message},
            "locations": [location],
            "fixes": [{"description": {"text": what},
                       "artifactChanges": [{"artifactLocation": location["physicalLocation"][
                           "artifactLocation"], "replacements": [replacement]}]}],
        })
    return out


def _what(record: dict) -> str:
    new = record["new"].strip()
    first = new.splitlines()[0] if new else ""
    if len(first) > 100:
        first = first[:97] + "..."
    if record["length"] == 0:
        return f"inserts `{first}`" if first else "inserts whitespace"
    if not new:
        return f"removes {record['length']} bytes"
    return f"replaces `{_short(record['old'])}` with `{first}`"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _diagnostic_result(diagnostic: Diagnostic, path: str, columns: _Columns,
                       rules: dict) -> dict:
    rules.setdefault(diagnostic.id, _rule(diagnostic.id, f"s2s diagnostic {diagnostic.id}"))
    text = diagnostic.message + "".join(f"\nnote: {n.message}" for n in diagnostic.notes)
    entry = {"ruleId": diagnostic.id, "level": _LEVEL[diagnostic.severity],
             "message": {"text": text}}
    where = diagnostic.location
    if where is not None and where.line >= 1:
        file_columns = columns if where.file == path else _Columns(None)
        column = file_columns.column(where.line, where.column)
        entry["locations"] = [_location(where.file, {"startLine": where.line,
                                                     "startColumn": column})]
    else:
        entry["locations"] = [_location(path, None)]
    return entry


def _region(line: int, column: int, end_line: int, end_column: int, columns: _Columns) -> dict:
    return {"startLine": line, "startColumn": columns.column(line, column),
            "endLine": end_line, "endColumn": columns.column(end_line, end_column)}


def _location(path: str, region: dict | None) -> dict:
    physical: dict = {"artifactLocation": _artifact(path)}
    if region is not None:
        physical["region"] = region
    return {"physicalLocation": physical}


def _artifact(path: str) -> dict:
    relative = os.path.relpath(os.path.abspath(path))
    if relative.startswith(".."):
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": quote(Path(relative).as_posix()), "uriBaseId": "SRCROOT"}


def _rule(rule_id: str, description: str) -> dict:
    return {"id": rule_id, "shortDescription": {"text": description}}


def dumps(log: dict) -> str:
    return json.dumps(log, indent=1, ensure_ascii=True) + "\n"
