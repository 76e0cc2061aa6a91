"""Edits of a class whose vectors stay mapped over each object's lifetime (omp.lifetime).

The fields are named through local handles (``auto s2s_m_x = m_x.data();``: a map clause
takes an addressable section, which a vector is not; ``auto s2s_u_ = u_;`` for a pointer
member, whose section ``[0:n_]`` names its count field) with ``[0:m_x.size()]`` sections:

* at the end of every constructor: ``target enter data map(to: ...)`` (``alloc`` for storage
  the constructors leave undefined), or before the statement where a constructor starts
  running device work;
* at the start of the destructor (added, public, before the class's closing brace when the
  class has none): ``target exit data map(release: ...)``;
* at the start of each member function that reads fields on the host:
  ``target update from(...)`` of those it reads.
"""

from __future__ import annotations

from s2s.analysis.omp.arrays import vector_handles
from s2s.analysis.omp.lifetime import ObjectMapping
from s2s.diagnostics import Diagnostic
from s2s.edits import Edit
from s2s.model import Stmt


def object_edits(mapping: ObjectMapping, source: bytes) -> list[Edit]:
    handles = dict(vector_handles(mapping.fields, source))
    unit = mapping.indent or "    "

    pointers = {p.name for p in mapping.pointers}

    def lines(fields, directive: str) -> list[str]:
        sections = ", ".join(f"{handles[f]}[0:{mapping.length(f)}]" for f in fields)
        return [f"auto {handles[f]} = {f if f in pointers else f + '.data()'};"
                for f in fields] + [f"#pragma omp target {directive}".replace("SECTIONS",
                                                                              sections)]

    everything = mapping.fields
    entries = [(way, [f for f in everything if mapping.entry(f) == way])
               for way in ("to", "alloc")]
    enter = [line for way, fields in entries if fields
             for line in lines(fields, f"enter data map({way}: SECTIONS)")]
    at = mapping.enter_at or (None,) * len(mapping.enters)
    edits = [_before_close(body, source, list(dict.fromkeys(enter)),
                           _inner(body, body.span.indent + unit)) if stmt is None else
             _before_statement(stmt, source, list(dict.fromkeys(enter)))
             for body, stmt in zip(mapping.enters, at, strict=True)]
    release = lines(everything, "exit data map(release: SECTIONS)")
    if mapping.release is not None:
        edits.append(_after_open(mapping.release, source, release,
                                 _inner(mapping.release, mapping.release.span.indent + unit)))
    else:
        text = ["public:", f"{unit}~{mapping.cls}()", f"{unit}{{",
                *(f"{unit * 2}{line}" for line in release), f"{unit}}}"]
        edits.append(_before_close_span(mapping.class_span, source, text))
    for _name, body, fields in mapping.readers:
        edits.append(_after_open(body, source, lines(fields, "update from(SECTIONS)"),
                                 _inner(body, body.span.indent + unit)))
    return edits


def object_notes(mapping: ObjectMapping, explain_id: str) -> list[Diagnostic]:
    fields = ", ".join(mapping.fields)
    covered = ", ".join(f"'{name}'" for name in sorted(mapping.covered))
    what = "pointer members" if len(mapping.pointers) == len(mapping.fields) else \
        "vectors" if not mapping.pointers else "vectors and pointer members"
    notes = [Diagnostic.note(
        f"the {what} {fields} of '{mapping.cls}' stay mapped on the device from the end of "
        f"each constructor{_early(mapping)} to the start of the destructor: the device work of "
        f"{covered} finds them present, and only member functions reach them", explain_id,
        mapping.class_span)]
    for name, body, read in mapping.readers:
        notes.append(Diagnostic.note(
            f"target update from({', '.join(read)}) at the start of '{name}': it reads them on "
            "the host, and between member functions the device copy is the newest",
            explain_id, body.span))
    return notes


def _early(mapping: ObjectMapping) -> str:
    """`` (or where it starts device work, line N)`` for constructors that enter early."""
    lines = [stmt.span.line for stmt in mapping.enter_at if stmt is not None]
    return f" (or where it starts device work: line {', '.join(map(str, lines))})" \
        if lines else ""


def _inner(body: Stmt, fallback: str) -> str:
    """The indentation of the statements of ``body`` (``fallback`` when it has none or they
    share the line of its opening brace)."""
    if body.children and body.children[0].span.line != body.span.line:
        return body.children[0].span.indent
    return fallback


def _after_open(body: Stmt, source: bytes, lines: list[str], indent: str) -> Edit:
    """Insert ``lines`` as the first lines of the block ``body``."""
    at = body.span.start + 1
    newline = source.find(b"\n", at)
    block = "".join(f"{indent}{line}\n" for line in lines)
    if newline >= 0 and source[at:newline].strip() == b"":
        return Edit(body.span.file, newline + 1, 0, block)
    blanks = len(source[at:]) - len(source[at:].lstrip(b" \t"))
    return Edit(body.span.file, at, blanks, "\n" + block + indent)


def _before_statement(stmt: Stmt, source: bytes, lines: list[str]) -> Edit:
    """Insert ``lines`` on lines of their own before the statement ``stmt``, at its
    indentation (after what precedes it when it does not start its line)."""
    line_start = source.rfind(b"\n", 0, stmt.span.start) + 1
    block = "".join(f"{stmt.span.indent}{line}\n" for line in lines)
    if source[line_start:stmt.span.start].strip() == b"":
        return Edit(stmt.span.file, line_start, 0, block)
    return Edit(stmt.span.file, stmt.span.start, 0, "\n" + block + stmt.span.indent)


def _before_close(body: Stmt, source: bytes, lines: list[str], indent: str) -> Edit:
    """Insert ``lines`` as the last lines of the block ``body``."""
    return _before_brace(body.span, source, [f"{indent}{line}" for line in lines],
                         body.span.indent)


def _before_close_span(span, source: bytes, lines: list[str]) -> Edit:
    """Insert ``lines`` before the closing brace of the class at ``span``."""
    return _before_brace(span, source, lines, "")


def _before_brace(span, source: bytes, lines: list[str], brace_indent: str) -> Edit:
    """Insert ``lines`` (indented already) on lines of their own before the closing brace
    at the end of ``span``; a brace that shares its line with code moves to a new line,
    indented by ``brace_indent``."""
    block = "".join(f"{line}\n" for line in lines)
    close = span.end - 1
    line_start = source.rfind(b"\n", 0, close) + 1
    if source[line_start:close].strip() == b"":
        return Edit(span.file, line_start, 0, block)
    return Edit(span.file, close, 0, "\n" + block + brace_indent)
