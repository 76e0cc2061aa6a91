"""``s2s report``: one self-contained HTML page to review what the passes would change.

For each file and pass: a summary (the pass's counts and its before/after numbers), the
pictures of :mod:`.figures` as inline SVG, and the original and rewritten code side by side
(lines aligned as a diff aligns them), with each change's explanation and each warning about
what was left alone inline under the lines it concerns. The page has no script and loads
nothing: styles and pictures are inside it, every text from a source file is escaped.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from html import escape

from s2s import __version__
from s2s.diagnostics import Diagnostic
from s2s.driver import FileResult, Success
from s2s.printers.explain import is_explanation
from s2s.printers.figures import Figure
from s2s.printers.json_doc import file_edits


@dataclass(frozen=True)
class Table:
    """A table of numbers under a section's summary (the transfer sites, the measured
    copies): its title, a sentence on how to read it, the header and the rows."""

    title: str
    note: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]


@dataclass
class Section:
    """One pass over one file: its result, summary lines, tables and pictures."""

    path: str
    command: str
    result: FileResult
    summary: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; background: #fafafa; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
table.summary { border-collapse: collapse; margin: 0.5em 0 1em; }
table.summary td, table.summary th { border: 1px solid #ccc; padding: 0.25em 0.6em;
  text-align: left; }
figure { display: inline-block; vertical-align: top; margin: 0.5em 1.5em 0.5em 0;
  background: #fff; border: 1px solid #ddd; padding: 0.5em; }
figcaption { font-size: 0.85em; max-width: 46em; color: #444; }
table.code { border-collapse: collapse; width: 100%; font-family: monospace; font-size: 12px;
  background: #fff; table-layout: fixed; }
table.code td { padding: 0 0.4em; white-space: pre-wrap; word-break: break-all;
  vertical-align: top; }
table.code td.n { width: 3.5em; color: #999; text-align: right; user-select: none; }
table.code th { background: #eee; text-align: left; padding: 0.3em; }
tr.chg td.o { background: #fdecea; } tr.chg td.r { background: #e6f4ea; }
tr.note td { background: #eef3fb; font-family: sans-serif; font-size: 12px; padding: 0.3em 1em;
  border-left: 3px solid #4477aa; }
tr.warn td { background: #fff8e1; font-family: sans-serif; font-size: 12px; padding: 0.3em 1em;
  border-left: 3px solid #ccbb44; }
tr.err td { background: #fdecea; border-left-color: #ee6677; }
.muted { color: #777; }
details summary { cursor: pointer; color: #555; margin: 0.3em 0; }
tr.fold td { color: #777; background: #f3f3f3; text-align: center; font-family: sans-serif; }
"""


def render(sections: list[Section], title: str = "s2s review") -> str:
    """The whole page."""
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{escape(title)}</h1>",
             f"<p class=\"muted\">s2s {escape(__version__)}: what each pass would change, "
             "why, and what it left alone.</p>", _overview(sections)]
    for number, section in enumerate(sections):
        parts.append(_section(section, number))
    parts.append("</body></html>\n")
    return "".join(parts)


def _overview(sections: list[Section]) -> str:
    rows = ["<table class=\"summary\"><tr><th>file</th><th>pass</th><th>status</th>"
            "<th>edits</th><th>warnings</th><th>summary</th></tr>"]
    for number, s in enumerate(sections):
        edits = len(s.result.change.edits) if isinstance(s.result, Success) and \
            s.result.change is not None else 0
        warnings = sum(1 for d in s.result.diagnostics if not is_explanation(d)
                       and d.severity.value != "note")
        rows.append(f"<tr><td><a href=\"#s{number}\">{escape(s.path)}</a></td>"
                    f"<td>{escape(s.command)}</td><td>{escape(s.result.status)}</td>"
                    f"<td>{edits}</td><td>{warnings}</td>"
                    f"<td>{escape('; '.join(s.summary))}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _section(section: Section, number: int) -> str:
    parts = [f"<h2 id=\"s{number}\">{escape(section.path)}: s2s {escape(section.command)}</h2>"]
    if section.summary:
        parts.append("<ul>" + "".join(f"<li>{escape(line)}</li>" for line in section.summary)
                     + "</ul>")
    for figure in section.figures:        # the pictures first: the tables hold the detail
        parts.append("<figure>" + (figure.svg or "")
                     + f"<figcaption><b>{escape(figure.title)}</b>: {escape(figure.caption)}"
                       "</figcaption></figure>")
    parts += [_table(table) for table in section.tables]
    result = section.result
    if isinstance(result, Success) and result.change is not None and result.change.changed:
        parts.append(_side_by_side(result))
        parts += [_generated(change) for change in result.generated if change.changed]
    elif isinstance(result, Success) and result.change is not None:
        # what the pass refused and why stays in the open: it is the news of this section
        left_alone = [d for d in result.diagnostics if not is_explanation(d)]
        if left_alone:
            parts.append("<h3>left as written, and why</h3><table class=\"code refusals\">"
                         + "".join(_note_row(d) for d in left_alone) + "</table>")
        parts.append("<details><summary>no change: the code</summary>"
                     + _side_by_side(result) + "</details>")
    else:
        parts.append("<table class=\"code\">" + "".join(
            _note_row(d) for d in result.diagnostics) + "</table>")
    return "".join(parts)


def _generated(change) -> str:
    """A file generated beside the source (mgpu's kernel table), folded: a reviewer reads the
    source's few changed lines above and opens the generated text if they want it."""
    state = "a new file" if change.created else "rewritten"
    lines = change.after.count(b"\n")
    return (f"<details><summary>generated beside it, included by it: "
            f"{escape(os.path.basename(change.path))} ({state}, {lines} lines)</summary>"
            f"<pre>{escape(change.after.decode('utf-8', errors='replace'))}</pre></details>")


def _table(table: Table) -> str:
    """Folded when long: a reviewer opens the sites of the file they care about."""
    head = "".join(f"<th>{escape(h)}</th>" for h in table.header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                   for row in table.rows)
    inner = (f"<table class=\"summary\"><tr>{head}</tr>{body}</table>"
             f"<p class=\"muted\">{escape(table.note)}</p>")
    title = f"{escape(table.title)} ({len(table.rows)} row{'s' if len(table.rows) != 1 else ''})"
    if len(table.rows) > 24:
        return f"<details><summary>{title}</summary>{inner}</details>"
    return f"<h3>{title}</h3>{inner}"


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").split("\n")


def _side_by_side(result: Success) -> str:
    change = result.change
    old, new = _lines(change.before), _lines(change.after)
    records, explained = file_edits(result)
    by_line: dict[int, list[str]] = {}
    for record in records:
        text = "; ".join(record["explanation"]) or "(no explanation given by the pass)"
        group = f" [{record['group']}]" if record["group"] else ""
        what = record["new"].strip().splitlines()[0] if record["new"].strip() else \
            f"removes {record['length']} bytes"
        by_line.setdefault(record["start"]["line"], []).append(
            f"{what} \u2014 {text}{group}")
    warnings: dict[int, list[Diagnostic]] = {}
    loose: list[Diagnostic] = list(explained.unattached)
    for d in result.diagnostics:
        if is_explanation(d):
            continue
        if d.location is not None and d.location.file == result.path and d.location.line >= 1:
            warnings.setdefault(d.location.line, []).append(d)
        else:
            loose.append(d)
    rows = ["<table class=\"code\"><colgroup><col style=\"width:3.5em\"><col>"
            "<col style=\"width:3.5em\"><col></colgroup>"
            "<tr><th colspan=\"2\">original</th><th colspan=\"2\">rewritten</th></tr>"]
    rows += [_note_row(d) for d in loose]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    keep = _shown_lines(matcher.get_opcodes(), set(warnings), len(old))
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        hidden = 0
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            if (tag == "equal" and i not in keep) or (tag != "equal" and k >= LONG_CHANGE
                                                      and k < max(i2 - i1, j2 - j1) - 3):
                hidden += 1
                continue
            if hidden:
                rows.append(_fold_row(hidden, "unchanged" if tag == "equal" else "more changed"))
                hidden = 0
            left = (i + 1, old[i]) if i < i2 else None
            right = (j + 1, new[j]) if j < j2 else None
            rows.append(_code_row(left, right, tag != "equal"))
            if left is not None:
                rows += [_note_row(d) for d in warnings.pop(left[0], ())]
        if hidden:
            rows.append(_fold_row(hidden, "unchanged" if tag == "equal" else "more changed"))
        if tag != "equal":
            lines = range(i1 + 1, i2 + 2)
            notes = [n for line in lines for n in by_line.pop(line, ())]
            rows += [f"<tr class=\"note\"><td colspan=\"4\">{escape(n)}</td></tr>"
                     for n in notes]
    for notes in by_line.values():
        rows += [f"<tr class=\"note\"><td colspan=\"4\">{escape(n)}</td></tr>" for n in notes]
    rows.append("</table>")
    return "".join(rows)


#: unchanged lines shown around each change and each warning
CONTEXT = 4


def _shown_lines(opcodes, warned: set[int], count: int) -> set[int]:
    """0-based original lines to show: those near a change or a warned line."""
    near: set[int] = set()
    for tag, i1, i2, _j1, _j2 in opcodes:
        if tag != "equal":
            near.update(range(max(i1 - CONTEXT, 0), min(i2 + CONTEXT, count)))
    for line in warned:
        near.update(range(max(line - 1 - CONTEXT, 0), min(line + CONTEXT, count)))
    return near


#: a changed stretch longer than this shows its first lines and its last three
LONG_CHANGE = 24


def _fold_row(hidden: int, what: str = "unchanged") -> str:
    return (f"<tr class=\"fold\"><td colspan=\"4\">\u22ef {hidden} {what} "
            f"line{'s' if hidden != 1 else ''} \u22ef</td></tr>")


def _code_row(left, right, changed: bool) -> str:
    def cells(side, css):
        if side is None:
            return f"<td class=\"n\"></td><td class=\"{css}\"></td>"
        return f"<td class=\"n\">{side[0]}</td><td class=\"{css}\">{escape(side[1])}</td>"
    css = " class=\"chg\"" if changed else ""
    return f"<tr{css}>{cells(left, 'o')}{cells(right, 'r')}</tr>"


def _note_row(d: Diagnostic) -> str:
    css = "warn err" if d.is_error else ("note" if d.severity.value == "note" else "warn")
    where = f"line {d.location.line}: " if d.location is not None and d.location.line else ""
    return (f"<tr class=\"{css}\"><td colspan=\"4\">{escape(where)}{escape(d.severity.value)}: "
            f"{escape(d.message)} [{escape(d.id)}]</td></tr>")

