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
from s2s.printers.rules import docs_url, help_uri, rule_for

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
    ordered = sorted(rules)
    index = {rule_id: i for i, rule_id in enumerate(ordered)}
    for entry in out:
        entry["ruleIndex"] = index[entry["ruleId"]]
    driver = {"name": "s2s", "version": __version__, "rules": [rules[key] for key in ordered]}
    if docs_url():
        driver["informationUri"] = docs_url()
    run = {
        "tool": {"driver": driver},
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
    rules.setdefault(rule, _rule(rule))
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
    return out + [_generated_result(command, change, records, rule)
                  for change in result.generated if change.changed]


def _generated_result(command: str, change, records: list[dict], rule: str) -> dict:
    """A file generated beside the source (mgpu's kernel table) as one result: shown at the
    source's line that includes it (code scanning shows results in files of the checkout;
    the generated one is not there yet), its whole text the fix's content for its own URI."""
    name = os.path.basename(change.path)
    including = next((r for r in records if f'#include "{name}"' in r["new"]), None)
    source = including["file"] if including else os.path.splitext(change.path)[0]
    line = including["start"]["line"] if including else 1      # (the include edit's own line)
    verb = "creates" if change.created else "rewrites"
    lines = change.after.count(b"\n")
    message = (f"s2s {command} {verb} the generated file {name} ({lines} lines) beside "
               f"{os.path.basename(source)}, which includes it at this line")
    replacement = {"deletedRegion": {"byteOffset": 0, "byteLength": len(change.before)},
                   "insertedContent": {"text": change.after.decode("utf-8", errors="replace")}}
    return {"ruleId": rule, "level": "note", "message": {"text": message},
            "locations": [_location(source, {"startLine": line})],
            "fixes": [{"description": {"text": f"{verb} {name}"},
                       "artifactChanges": [{"artifactLocation": _artifact(change.path),
                                            "replacements": [replacement]}]}]}


def _what(record: dict) -> str:
    """What the edit does, in words; code is quoted whole (a message cut mid-expression,
    ``map(alloc: tmp[0:(s...``, hides the very clause a reviewer has to check): a text of
    several lines is quoted line by line, a long one (a fused kernel) by its first line and
    the count of the others."""
    new = record["new"].strip()
    if record["length"] == 0:
        return f"inserts {_quoted(new)}" if new else "inserts whitespace"
    if not new:
        return f"removes {_quoted(record['old'].strip())}" if record["old"].strip() else \
            f"removes {record['length']} bytes of whitespace"
    return f"replaces {_quoted(record['old'].strip())} with {_quoted(new)}"


#: a text of more lines than this (a fused kernel) is quoted by its first line
QUOTED_LINES = 4


def _quoted(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()] or [""]
    if len(lines) <= QUOTED_LINES:
        return " and ".join(f"`{line}`" for line in lines)
    more = len(lines) - 1
    return f"`{lines[0]}` (and {more} more lines)"


def _diagnostic_result(diagnostic: Diagnostic, path: str, columns: _Columns,
                       rules: dict) -> dict:
    rules.setdefault(diagnostic.id, _rule(diagnostic.id))
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
        # a message about the file or the program as a whole: shown at the file's first
        # line (code scanning drops results without a region)
        entry["locations"] = [_location(where.file if where is not None else path,
                                        {"startLine": 1})]
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


def _rule(rule_id: str) -> dict:
    """The rule of an id from :mod:`s2s.printers.rules`: what code scanning shows beside each
    result (title, description, what to do, a link to docs/diagnostics.md)."""
    rule = rule_for(rule_id)
    if rule is None:          # an id the registry lacks (a test keeps this from happening)
        return _with_help_uri({"id": rule_id,
                               "shortDescription": {"text": f"s2s diagnostic {rule_id}"}},
                              "diagnostics")
    title = rule.title[0].upper() + rule.title[1:]
    entry = {"id": rule_id, "name": _camel(rule_id),
             "shortDescription": {"text": title},
             "fullDescription": {"text": rule.meaning},
             "help": {"text": f"{rule.meaning}\n\nWhat to do: {rule.action}\n\nExample:\n"
                              f"{rule.example}",
                      "markdown": f"{rule.meaning}\n\n**What to do:** {rule.action}\n\n"
                                  f"```\n{rule.example}\n```"}}
    return _with_help_uri(entry, rule.id)


def _with_help_uri(rule: dict, anchor_id: str) -> dict:
    """``rule`` with its link into docs/diagnostics.md, when the page's address is known."""
    uri = help_uri(anchor_id)
    return {**rule, "helpUri": uri} if uri else rule


def _camel(rule_id: str) -> str:
    """``omp-left-unmapped`` -> ``OmpLeftUnmapped`` (SARIF's rule name)."""
    return "".join(part.capitalize() for part in rule_id.replace("*", "x").split("-"))


def dumps(log: dict) -> str:
    return json.dumps(log, indent=1, ensure_ascii=True) + "\n"
