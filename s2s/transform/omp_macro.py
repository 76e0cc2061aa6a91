"""``s2s omp`` around target constructs written through ``_Pragma`` macros.

The Parallel Research Kernels write ``OMP_TARGET( teams distribute parallel for )`` with
``#define OMP_TARGET(x) PRAGMA(omp target x)``. The construct is planned like any other
(:func:`s2s.frontend.openmp.directives.macro_pragmas`), but nothing may be edited inside the
macro use. What clang accepts instead is a directive on a line of its own *outside* the use:

* a data region (``target data``, ``target enter/exit data``) or ``target update`` placed before
  the use or around the statement holding it, in the function's own text: the construct then
  finds its data present (a pointer without a map clause of its own is a zero-length section
  that attaches to present storage);
* per construct, where the plan of the function is refused (the safety net): ``target enter
  data`` before the use and ``target exit data`` after its loop, with the map types of the
  clauses the construct would have taken.

So the clauses a plan appends to a construct (``explicit``: they move nothing inside the
region) are left out on such a construct, and an insertion before it is no edit inside the
macro. Only a use that stands as a statement of a block can take a line before it; one that is
the lone body of an ``if`` or a loop is left, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.edits import Edit
from s2s.model import SourceSpan

#: per map type of the construct's clause: the type on entry and on exit
_ENTER = {"to": "to", "tofrom": "to", "from": "alloc"}
_EXIT = {"to": "release", "tofrom": "from", "from": "from"}
_CLAUSE = re.compile(r"map\((to|tofrom|from): (.*)\)\Z")


def without_macro_clauses(region, spans: frozenset[SourceSpan]):
    """``region`` less the clauses it appends to constructs written through macros (their
    storage is present in the region: the clauses would move nothing)."""
    kept = tuple((span, clause) for span, clause in region.explicit if span not in spans)
    return region if len(kept) == len(region.explicit) else replace(region, explicit=kept)


def without_member_clauses(region):
    """``region`` less the clauses it appends to its kernels for struct members it maps
    itself under the same name and section (``map(tofrom: w.p[0:w.npts])`` inside a region
    mapping ``w.p[0:w.npts]``): the kernel's implicit map of ``w`` finds the struct present
    with its members attached, and a second run would take the clauses for moot ones and
    delete them (no fixed point)."""
    mapped = {f"{a.name}{a.section}".replace(" ", "") for a in region.arrays
              if "." in a.name or "->" in a.name}
    kept = tuple((span, clause) for span, clause in region.explicit
                 if clause.split(":", 1)[-1].strip(" )").replace(" ", "") not in mapped)
    return region if len(kept) == len(region.explicit) else replace(region, explicit=kept)


def stands_alone(span: SourceSpan, source: bytes) -> bool:
    """Whether a line may go before the macro use at ``span``: the code before it (blank and
    comment lines aside) ends a statement, opens or closes a block, or is a preprocessing
    line; anything else (``if (c)``, ``else``, a loop header) has the use as its body."""
    lines = source[:span.start].decode("utf-8", "surrogateescape").split("\n")
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index].strip()
        if line.startswith("#"):
            return True
        if "//" in line:
            line = line[:line.index("//")].rstrip()
        if line.endswith("*/") and "/*" in line:
            line = line[:line.rindex("/*")].rstrip()
        if not line or line.startswith(("*", "/*")):
            continue
        return line[-1] in ";{}"
    return True


def enter_exit_edits(span: SourceSpan, stmt_end: int, clauses: tuple[str, ...],
                     source: bytes) -> list[Edit] | None:
    """``target enter data`` on a line before the macro use at ``span`` and ``target exit
    data`` on a line after its statement (ending at ``stmt_end``), for the per-construct
    ``clauses`` (``map(to: a[0:n], b[0:n])``); None when a clause is of another form."""
    enter: dict[str, list[str]] = {}
    leave: dict[str, list[str]] = {}
    for clause in clauses:
        match = _CLAUSE.match(clause)
        if match is None:
            return None
        kind, items = match.groups()
        enter.setdefault(_ENTER[kind], []).append(items)
        leave.setdefault(_EXIT[kind], []).append(items)
    order = ("to", "alloc", "from", "release")

    def text(parts: dict[str, list[str]]) -> str:
        return " ".join(f"map({t}: {', '.join(parts[t])})" for t in order if t in parts)

    indent = span.indent
    enter_line = f"#pragma omp target enter data {text(enter)}"
    line_start = source.rfind(b"\n", 0, span.start) + 1
    if source[line_start:span.start].strip() == b"":
        before = Edit(span.file, line_start, 0, f"{indent}{enter_line}\n")
    else:
        before = Edit(span.file, span.start, 0, f"\n{indent}{enter_line}\n{indent}")
    newline = source.find(b"\n", stmt_end)
    exit_line = f"#pragma omp target exit data {text(leave)}"
    if newline >= 0 and source[stmt_end:newline].strip() == b"":
        after = Edit(span.file, newline + 1, 0, f"{indent}{exit_line}\n")
    elif newline < 0:
        after = Edit(span.file, len(source), 0, f"\n{indent}{exit_line}\n")
    else:
        after = Edit(span.file, stmt_end, 0, f"\n{indent}{exit_line}\n{indent}")
    return [before, after]
