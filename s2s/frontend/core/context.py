"""Shared state of one extraction: cursor -> SourceSpan conversion and a main-file cursor walk.

libclang reports macro-produced code in two ways, both handled here: code from a macro's body
gets the macro call's extent, and code from a macro's arguments gets an empty extent at the
macro call's start. Either way the construct is flagged with the macro's name so the edit
engine refuses to touch it.
"""

from __future__ import annotations

import bisect
import functools

from s2s.diagnostics import Diagnostic
from s2s.frontend.core.fast_cursor import offsets
from s2s.frontend.core.toolchain import configure_libclang, is_tool_header
from s2s.frontend.core.walk import Node, SubtreeLinks, main_file_nodes, subtree_links  # noqa: F401  (Node re-exported)
from s2s.frontend.core.walk import file_is as _file_is
from s2s.model.span import Expr, SourceSpan

#: Cursor kinds that open a template definition (their contents are flagged ``template``).
TEMPLATE_KINDS = frozenset({"FUNCTION_TEMPLATE", "CLASS_TEMPLATE",
                            "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION"})
FUNCTION_KINDS = frozenset({"FUNCTION_DECL", "FUNCTION_TEMPLATE", "CXX_METHOD", "CONSTRUCTOR",
                            "DESTRUCTOR", "CONVERSION_FUNCTION"})


class SourceIndex:
    """Byte-offset bookkeeping for one file: lines, indentation and macro expansions."""

    def __init__(self, path: str, source: bytes, top_level=()):
        self.path = path
        self.source = source
        self._line_starts = [0]
        pos = source.find(b"\n")
        while pos >= 0:
            self._line_starts.append(pos + 1)
            pos = source.find(b"\n", pos + 1)
        macros = sorted((c.extent.start.offset, -c.extent.end.offset, c.spelling)
                        for c in top_level if c.kind.name == "MACRO_INSTANTIATION")
        # Keep only outermost macro calls: nested ones (a macro in another's arguments) lie
        # inside them, so the kept list is disjoint and one bisect finds the container.
        self._macros: list[tuple[int, int, str]] = []
        for start, neg_end, name in macros:
            if self._macros and start < self._macros[-1][1]:
                continue
            self._macros.append((start, -neg_end, name))
        self._macro_starts = [m[0] for m in self._macros]
        self._spans: dict[tuple[int, int, str | None], SourceSpan] = {}
        self._indents: dict[int, str] = {}

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def indent(self, offset: int) -> str:
        line, _ = self.line_col(offset)
        found = self._indents.get(line)
        if found is None:
            found = self._indents[line] = self._line_indent(line)
        return found

    def _line_indent(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = start
        while end < len(self.source) and self.source[end : end + 1] in (b" ", b"\t"):
            end += 1
        return self.source[start:end].decode("ascii")

    def macro_at(self, start: int, end: int) -> str | None:
        """The outermost macro call whose text contains ``[start, end)``, if any."""
        i = bisect.bisect_right(self._macro_starts, start) - 1
        if i < 0:
            return None
        m_start, m_end, name = self._macros[i]
        if end <= m_end and (start < m_end or m_start == start):
            return name
        return None

    def span(self, start: int, end: int, template: str | None = None) -> SourceSpan:
        """The span of ``[start, end)``; one object per range (extractors ask for the same
        statements' and expressions' spans again and again, and spans are frozen)."""
        key = (start, end, template)
        found = self._spans.get(key)
        if found is None:
            found = self._spans[key] = self._new_span(start, end, template)
        return found

    def _new_span(self, start: int, end: int, template: str | None) -> SourceSpan:
        line, col = self.line_col(start)
        end_line, end_col = self.line_col(end)
        return SourceSpan(self.path, start, end, line, col, end_line, end_col,
                          self.indent(start), self.macro_at(start, end), template)

    def cursor_span(self, cursor, template: str | None = None) -> SourceSpan:
        start, end = offsets(cursor)
        return self.span(start, end, template)

    def text(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", errors="surrogateescape")

    def cursor_text(self, cursor) -> str:
        return self.text(*offsets(cursor))

    def expr(self, cursor, template: str | None = None) -> Expr:
        span = self.cursor_span(cursor, template)
        return Expr(self.text(span.start, span.end), span)


class ExtractContext:
    """One translation unit being extracted: spans, text and a cached main-file walk.

    ``included`` names a project header of the unit (as libclang names it) to extract instead
    of the main file: the header's cursors as the including file's parse has them, with its
    macros, types and includes before the ``#include`` line (a header that does not parse on
    its own). Then "the main file" is that header throughout: the walk, the spans (into the
    header's bytes ``source``, under the name ``span_path``) and the macro calls."""

    def __init__(self, path: str, source: bytes, unit, side: str = "host",
                 included: bool = False, span_path: str | None = None):
        self.path = path
        self.source = source
        self.unit = unit
        self.side = side
        self.included = included
        cindex = configure_libclang()
        lib = cindex.conf.lib
        self._is_main = lib.clang_Location_isFromMainFile
        if included:
            self._is_main = functools.partial(_in_file, path)
        self._is_system = lib.clang_Location_isInSystemHeader
        self._cindex = cindex
        self.top_level = self._main_file_children(unit.cursor)
        self.index = SourceIndex(span_path or path, source, self.top_level)
        self._nodes: list[Node] | None = None
        self._memo: dict[str, object] = {}
        self.diagnostics: list[Diagnostic] = []

    def memo(self, key: str, build):
        """``build(self)`` once per context: per-unit indexes of the extractors live and die
        with the context (a global cache keyed by context kept every unit alive)."""
        if key not in self._memo:
            self._memo[key] = build(self)
        return self._memo[key]

    def release(self) -> None:
        """Drop the cached walk and the per-unit indexes once the model is built. They refer
        back to the context (the tree keeps ``ctx``), so without this every cursor of the
        unit waited for a full garbage collection, and full collections over a big program's
        heap were a third of its load."""
        self._memo.clear()
        self._nodes = None

    def warn(self, message: str, id: str, at: SourceSpan) -> None:
        """Record a warning about a construct the extractor could not fully model."""
        self.diagnostics.append(Diagnostic.warning(message, id, at))

    def in_main_file(self, cursor) -> bool:
        """Whether ``cursor`` is written in the main file, or expanded there from a macro.

        clang_Location_isFromMainFile is cheap but false for macro-expanded code, so other
        non-system locations fall back to comparing the expansion file's name.
        """
        location = cursor.location
        if self._is_main(location):
            return True
        if self._is_system(location):
            return False
        file = location.file
        return file is not None and file.name == self.path

    def _main_file_children(self, cursor) -> list:
        """``[c for c in cursor.get_children() if self.in_main_file(c)]``, from the unit's
        top level sorted by file once (:func:`_top_level_by_file`): the translation unit's
        top level holds every declaration and macro of every header (thousands of cursors),
        and the file and each project header read in its context (cuda-samples'
        ``helper_*.h``: three contexts) each tested every one of them (BlackScholes: 70,000
        file look-ups, a third of its load)."""
        main, by_file = _top_level_by_file(self.unit, cursor)
        if self.included:
            return _owned(self.unit, by_file.get(self.path, ()))
        own = {id(entry[0]) for entry in by_file.get(self.path, ())}
        return _owned(self.unit, [e for e in main if e[2] or id(e[0]) in own])

    def header_top_level(self) -> list:
        """The unit's top-level cursors in its project headers (neither the main file nor a
        system header; none for a header read in its includer's context, whose includer's
        other headers are the includer's business)."""
        if self.included:
            return []
        main, _by_file = _top_level_by_file(self.unit, self.unit.cursor)
        return _owned(self.unit, [e for e in main if not e[2]])

    def project_headers(self) -> tuple[str, ...]:
        """The headers the unit includes that are not system headers, each once, in order."""
        return project_headers_of(self.unit, self.path)

    def nodes(self) -> list[Node]:
        """Every cursor spelled in the main file, in pre-order, with template/function context.

        Recurses only into main-file cursors: walking the whole translation unit (headers
        included) would cost more than the parse.
        """
        if self._nodes is None:
            self._nodes = main_file_nodes(self, _kind_of, TEMPLATE_KINDS, FUNCTION_KINDS)
        return self._nodes

    def subtree_links(self) -> SubtreeLinks:
        """Each node's parent and subtree end (:func:`walk.subtree_links`), once per context."""
        return self.memo("core.subtree_links", lambda ctx: subtree_links(ctx.nodes()))

    def span(self, cursor, template: str | None = None) -> SourceSpan:
        return self.index.cursor_span(cursor, template)

    def expr(self, cursor, template: str | None = None) -> Expr:
        return self.index.expr(cursor, template)

    def text(self, cursor) -> str:
        return self.index.cursor_text(cursor)


def _top_level_by_file(unit, cursor) -> tuple[list, dict[str, list]]:
    """The unit's top-level cursors outside system headers, worked out once per unit: in
    order, each as (cursor, location, in the main file as libclang says: macro expansions
    there included), and those outside the main file by the file their expansion lies in.
    The cached cursors hold no reference to the unit (that would be a cycle through the
    unit's own attribute, freed only by a full collection): :func:`_owned` hands out copies
    that do."""
    cached = getattr(unit, "_s2s_top_level", None)
    if cached is not None:
        return cached
    lib = configure_libclang().conf.lib
    location_of, is_main, is_system = lib.clang_getCursorLocation, \
        lib.clang_Location_isFromMainFile, lib.clang_Location_isInSystemHeader
    found: list = []
    lib.clang_visitChildren(cursor, _collect_children(), found)
    main: list = []
    by_file: dict[str, list] = {}
    for child in found:
        location = location_of(child)
        in_main = bool(is_main(location))
        if not in_main and is_system(location):
            continue
        main.append((child, location, in_main))
        file = None if in_main else location.file
        if file is not None:
            by_file.setdefault(file.name, []).append((child, location, in_main))
    unit._s2s_top_level = (main, by_file)
    return main, by_file


def _owned(unit, entries) -> list:
    """Copies of the cached cursors that keep ``unit`` alive and cache their location, as
    ``Cursor.location`` would."""
    kept = []
    for child, location, _in_main in entries:
        copy = type(child).from_buffer_copy(child)
        copy._tu = unit
        copy._loc = location
        kept.append(copy)
    return kept


def project_headers_of(unit, path: str) -> tuple[str, ...]:
    """The headers libclang's ``unit`` (of the file ``path``) includes that are not system
    headers, each once, in order, ``path`` itself left out. s2s's own headers (the parse's
    ``-include`` of ``shim/nvcc_compat.h`` and the legacy-API stub) are the tool's, not the
    project's: none is modelled, searched or copied as the user's (the device-word filter of
    ``included_headers`` modelled ``nvcc_compat.h`` in every CUDA run, issue 30).

    The unit's headers are worked out once (a header included many times, or by many
    headers, is looked up once; each look-up asks libclang for a location) and shared by the
    file's context and those of the project headers read in it (each asked with its own
    ``path``: keyed by path, the cache was rebuilt for every header context)."""
    headers = getattr(unit, "_s2s_project_headers", None)
    if headers is None:
        headers = unit._s2s_project_headers = _non_system_headers(unit)
    return tuple(name for name in headers if name != path)


def _non_system_headers(unit) -> tuple[str, ...]:
    cindex = configure_libclang()
    is_system = cindex.conf.lib.clang_Location_isInSystemHeader
    found, seen = [], set()
    for inclusion in unit.get_includes():
        name = inclusion.include.name
        if name in seen:
            continue
        seen.add(name)
        start = cindex.SourceLocation.from_position(unit, inclusion.include, 1, 1)
        if not is_system(start) and not is_tool_header(name):
            found.append(name)
    return tuple(found)


def _in_file(path: str, location) -> bool:
    """``clang_Location_isFromMainFile`` for a context whose "main file" is the header
    ``path``: the location's expansion lies in it."""
    return _file_is(location, path)


_COLLECT: list = []


def _collect_children():
    """One libclang visitor callback (made once) that appends each child to the list passed
    as client data and goes on with the next sibling."""
    if not _COLLECT:
        cindex = configure_libclang()

        def collect(child, _parent, found) -> int:
            found.append(child)
            return 1  # CXChildVisit_Continue

        _COLLECT.append(cindex.cursor_visit_callback(collect))
    return _COLLECT[0]


#: CursorKind id -> name, filled as kinds are met
_KIND_NAMES: dict[int, str] = {}


def _kind_name(cindex, kind_id: int) -> str:
    name = _KIND_NAMES[kind_id] = cindex.CursorKind.from_id(kind_id).name
    return name


def _kind_of(kind_id: int) -> str:
    return _KIND_NAMES.get(kind_id) or _kind_name(configure_libclang(), kind_id)
