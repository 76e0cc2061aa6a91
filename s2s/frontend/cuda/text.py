"""Fast libclang access and the text work of the CUDA extractors: cursor offsets, children and
kinds read through libclang directly; bracket groups and top-level splits of expression text;
a launch's ``<<<...>>>`` text; and the small expansion of a file's own ``#define``s that
recovers code written in macro bodies (see :mod:`s2s.frontend.cuda.constructs`)."""

from __future__ import annotations

import bisect
import ctypes
import functools
import re
from dataclasses import dataclass

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.toolchain import configure_libclang

# --- fast libclang access ---------------------------------------------------------------


@functools.cache
def clang_lib():
    """ctypes entry points for offsets without building cindex's Python wrappers (4x faster)."""
    cindex = configure_libclang()
    lib = cindex.conf.lib
    uint_p = ctypes.POINTER(ctypes.c_uint)
    file_location = lib.clang_getFileLocation
    file_location.argtypes = [cindex.SourceLocation, ctypes.POINTER(ctypes.c_void_p),
                              uint_p, uint_p, uint_p]
    file_location.restype = None
    spelling_location = lib.clang_getSpellingLocation
    spelling_location.argtypes = file_location.argtypes
    spelling_location.restype = None
    return (lib.clang_getCursorExtent, lib.clang_getRangeStart, lib.clang_getRangeEnd,
            lib.clang_getInstantiationLocation, file_location, spelling_location)


def offsets_of(cursor, file_level: bool = False) -> tuple[int, int]:
    """``cursor``'s extent as byte offsets: expansion positions, or with ``file_level`` where
    the text is spelled when that is in the file (macro arguments)."""
    extent, start, end, expansion, file_location, _ = clang_lib()
    get = file_location if file_level else expansion
    rng = extent(cursor)
    out = ctypes.c_uint()
    get(start(rng), None, None, None, ctypes.byref(out))
    begin = out.value
    get(end(rng), None, None, None, ctypes.byref(out))
    return begin, out.value


def children_of(cursor) -> list:
    """``cursor.get_children()`` without its per-child null check (a libclang call each)."""
    cindex = configure_libclang()
    out = []

    def visit(child, _parent, _data):
        child._tu = cursor._tu
        out.append(child)
        return 1  # CXChildVisit_Continue

    cindex.conf.lib.clang_visitChildren(cursor, cindex.cursor_visit_callback(visit), None)
    return out


@functools.cache
def _kind_names() -> dict[int, str]:
    return {kind.value: kind.name for kind in configure_libclang().CursorKind.get_all_kinds()}


def kind_of(cursor) -> str:
    """``cursor.kind.name`` without cindex's per-call null check."""
    return _kind_names()[cursor._kind_id]


def spelling_of(cursor) -> str:
    """``cursor.spelling`` without cindex's per-call null check."""
    cindex = configure_libclang()
    return cindex._CXString.from_result(cindex.conf.lib.clang_getCursorSpelling(cursor))


def has_file(cursor) -> bool:
    """False for cursors with no place in any file (default arguments, implicit nodes)."""
    extent, start, _, expansion, _, _ = clang_lib()
    handle = ctypes.POINTER(ctypes.c_void_p)()
    expansion(start(extent(cursor)), ctypes.byref(handle), None, None, None)
    return bool(handle)


# --- text helpers -----------------------------------------------------------------------

_CLOSE = {"(": ")", "[": "]", "{": "}"}
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|##|#\s*[A-Za-z_]\w*|'
                    r"[A-Za-z_]\w*")
IDENT_AT_END = re.compile(r"([A-Za-z_]\w*)\s*$")
BUILTIN_MEMBER = re.compile(r"\s*(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([xyz])\s*$")
BUILTIN_AT = re.compile(r"(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([xyz])(?!\w)")


def blank_literals(text: str) -> str:
    """``text`` with string and character literal contents blanked (same length)."""
    return _LITERAL.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1],
                        text)


def group_end(text: str, i: int) -> int:
    """Index just past the bracket group opening at ``text[i]`` (``len(text)`` if unclosed)."""
    stack = []
    for j in range(i, len(text)):
        ch = text[j]
        if ch in _CLOSE:
            stack.append(_CLOSE[ch])
        elif ch in ")]}" and stack:
            if ch == stack[-1]:
                stack.pop()
            if not stack:
                return j + 1
    return len(text)


def split_top(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Top-level comma-separated pieces of ``text[start:end]``, trimmed (literals blanked)."""
    pieces, depth, begin = [], 0, start
    for j in range(start, end):
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(_trim(text, begin, j))
            begin = j + 1
    last = _trim(text, begin, end)
    if pieces or last[0] < last[1]:
        pieces.append(last)
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def call_args_text(text: str, name: str, nth: int = 0) -> list[str] | None:
    """Argument texts of the ``nth`` call ``name(...)`` in ``text``, or None."""
    blank = blank_literals(text)
    found = list(re.finditer(rf"(?<![\w.>]){re.escape(name)}\s*\(", blank))
    if nth >= len(found):
        return None
    open_ = found[nth].end() - 1
    close = group_end(blank, open_)
    return [text[s:e] for s, e in split_top(blank, open_ + 1, close - 1)]


@dataclass(frozen=True)
class _LaunchText:
    """A ``kernel<targs><<<config>>>(args)`` recovered from text."""

    kernel: str
    template_args: str | None
    config: list[str]
    args: list[str]


def parse_launch_text(text: str, nth: int = 0) -> _LaunchText | None:
    """The ``nth`` launch written in ``text`` (a macro expansion), or None."""
    blank = blank_literals(text)
    starts = [m.start() for m in re.finditer(r"<<<", blank)]
    if nth >= len(starts):
        return None
    at = starts[nth]
    callee_end = at
    while callee_end > 0 and blank[callee_end - 1].isspace():
        callee_end -= 1
    targs = None
    name_end = callee_end
    if callee_end and blank[callee_end - 1] == ">":
        depth, j = 0, callee_end - 1
        while j >= 0:
            depth += {">": 1, "<": -1}.get(blank[j], 0)
            if depth == 0:
                break
            j -= 1
        targs = text[j + 1 : callee_end - 1].strip()
        name_end = j
    match = IDENT_AT_END.search(blank, 0, name_end)
    close = blank.find(">>>", at + 3)
    if match is None or close < 0:
        return None
    config = [text[s:e] for s, e in split_top(blank, at + 3, close)]
    open_ = close + 3
    while open_ < len(blank) and blank[open_].isspace():
        open_ += 1
    args: list[str] = []
    if open_ < len(blank) and blank[open_] == "(":
        end = group_end(blank, open_)
        args = [text[s:e] for s, e in split_top(blank, open_ + 1, end - 1)]
    return _LaunchText(match.group(1), targs, config, args)


# --- macros -------------------------------------------------------------------------------


#: a macro body that is one launch: ``k<<<...>>>(...)`` (checked further by forwards_launch)
_FORWARDING = re.compile(r"[A-Za-z_]\w*\s*<<<.*>>>\s*(\()(.*)", re.S)


@dataclass(frozen=True)
class MacroCall:
    start: int
    end: int
    name: str


class Macros:
    """The file's macro calls (outermost ones) and ``#define``s, with a small text expander."""

    def __init__(self, ctx: ExtractContext):
        self.source = ctx.source
        calls, self._defs = [], {}
        self._cursors: dict = {}            # macro call start -> its MACRO_INSTANTIATION cursor
        for cursor in ctx.top_level:
            kind = cursor.kind.name
            if kind == "MACRO_INSTANTIATION":
                start, end = offsets_of(cursor)
                calls.append(MacroCall(start, end, cursor.spelling))
                self._cursors[start] = cursor
            elif kind == "MACRO_DEFINITION":
                start, end = offsets_of(cursor)
                self._defs.setdefault(cursor.spelling, []).append((start, end))
        calls.sort(key=lambda c: (c.start, -c.end))
        self.all = calls
        self._all_starts = [c.start for c in calls]
        self.outer: list[MacroCall] = []
        for call in calls:
            if not self.outer or call.start >= self.outer[-1].end:
                self.outer.append(call)
        self._starts = [c.start for c in self.outer]
        self._expansions: dict[tuple[str, int], str | None] = {}
        self._parsed: dict[tuple[int, int], tuple] = {}
        self._forwarded: dict[int, list[tuple[int, int]]] = {}

    def call_at(self, offset: int) -> MacroCall | None:
        """The outermost macro call whose text holds ``offset`` (its start included)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and self.outer[i].start <= offset < max(self.outer[i].end, offset + 1):
            return self.outer[i]
        return None

    def inner_at(self, offset: int, outer_start: int) -> list[MacroCall]:
        """Macro calls nested in the arguments of the call at ``outer_start`` that hold
        ``offset``, outermost first."""
        found, i = [], bisect.bisect_right(self._all_starts, offset) - 1
        while i >= 0 and self.all[i].start > outer_start:
            if offset < self.all[i].end:
                found.append(self.all[i])
            i -= 1
        return found[::-1]

    def text(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", errors="surrogateescape")

    def expansion(self, call: MacroCall) -> str | None:
        """The call's text with the file's own macros expanded (None: macro not defined here)."""
        text = self.text(call.start, call.end)
        spans = self._defs.get(call.name, ())
        # Same text under the same #define: same expansion (CHECK(cudaGetLastError()) x 50).
        key = (text, bisect.bisect_left(spans, (call.start,)))
        if key not in self._expansions:
            expanded = self._expand(text, call.start, frozenset(), 0)
            self._expansions[key] = expanded if expanded != text else None
        return self._expansions[key]

    def forwards_launch(self, call: MacroCall) -> bool:
        """True when ``call``'s macro is a function-like macro whose body is one launch and
        nothing else (``#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)``): the call is
        then the launch, and a rewrite may replace the call's text by the rewritten launch."""
        definition = self._definition(call.name, call.start) or self._included_definition(call)
        if definition is None or definition[0] is None:
            return False
        body = definition[1]
        match = _FORWARDING.fullmatch(body)
        if match is None or ";" in body or "#" in body:
            return False
        open_ = match.start(1)
        return group_end(body, open_) == len(body)

    def forwards_argument(self, call: MacroCall, offset: int) -> bool:
        """True when the text at ``offset`` is in an argument of ``call`` (no macro call
        nested in the argument holds it) whose parameter the macro's body names exactly once,
        neither stringized (``#p``) nor pasted (``##``): the argument's text is then expanded
        once, as written, and a copy of the call with that text changed means what the
        changed text means there (``CHECK(cudaMalloc(&p, n))`` with ``p`` renamed)."""
        if call.start not in self._forwarded:
            self._forwarded[call.start] = self._forwarded_arguments(call)
        return not self.inner_at(offset, call.start) and any(
            s <= offset - call.start < e for s, e in self._forwarded[call.start])

    def _forwarded_arguments(self, call: MacroCall) -> list[tuple[int, int]]:
        """(start, end) in the call's text of each argument the macro forwards plainly."""
        definition = self.definition_of(call)
        if definition is None or not definition[0] or "##" in definition[1]:
            return []
        params, body = definition
        text = blank_literals(self.text(call.start, call.end))
        open_ = text.find("(", len(call.name))
        if open_ < 0:
            return []
        pieces = split_top(text, open_ + 1, group_end(text, open_) - 1)
        tokens = [m.group(0) for m in _TOKEN.finditer(body)]
        stringized = {t[1:].strip() for t in tokens if t.startswith("#")}
        plain = {name for name in set(tokens) if tokens.count(name) == 1 and name not in stringized}
        out = []
        for index, piece in enumerate(pieces):
            if params[-1].endswith("...") and index >= len(params) - 1:
                name = params[-1].removesuffix("...") or "__VA_ARGS__"
            elif index < len(params) and len(pieces) == len(params):
                name = params[index]
            else:
                continue
            if name in plain:
                out.append(piece)
        return out

    def definition_of(self, call: MacroCall):
        """(params or None for an object-like macro, body) of the macro ``call`` expands, defined
        in this file or in a project header; None when neither defines it."""
        return self._definition(call.name, call.start) or self._included_definition(call)

    def _definition(self, name: str, before: int):
        """(params or None for an object-like macro, body) of the last ``#define`` before."""
        spans = self._defs.get(name)
        if not spans:
            return None
        i = bisect.bisect_left(spans, (before,)) - 1
        if i < 0:
            return None
        key = spans[i]
        if key not in self._parsed:
            self._parsed[key] = _parsed_definition(name, self.text(*key))
        return self._parsed[key]

    def _included_definition(self, call: MacroCall):
        """(params, body) of a macro a project header defines (the call's cursor names the
        ``#define``; its text is read from that header); None for a system header's."""
        cursor = self._cursors.get(call.start)
        definition = cursor.referenced if cursor is not None else None
        if definition is None or definition.location.file is None or \
                definition.location.is_in_system_header:
            return None
        start, end = offsets_of(definition)
        try:
            with open(definition.location.file.name, "rb") as handle:
                text = handle.read()[start:end]
        except OSError:
            return None
        return _parsed_definition(call.name, text.decode("utf-8", errors="surrogateescape"))

    def _expand(self, text: str, at: int, active: frozenset, depth: int) -> str:
        out, pos = [], 0
        for match in _TOKEN.finditer(text):
            if match.start() < pos:
                continue
            name = match.group(0)
            definition = None if name in active or depth > 8 else self._definition(name, at)
            if definition is None:
                continue
            params, body = definition
            end = match.end()
            if params is not None:
                open_ = end
                while open_ < len(text) and text[open_].isspace():
                    open_ += 1
                if open_ >= len(text) or text[open_] != "(":
                    continue
                end = group_end(text, open_)
                blank = blank_literals(text)
                args = [text[s:e] for s, e in split_top(blank, open_ + 1, end - 1)]
                body = _substitute(body, params, args)
            out.append(text[pos : match.start()])
            out.append(self._expand(body, at, active | {name}, depth + 1))
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _parsed_definition(name: str, text: str):
    """(params or None for an object-like macro, body) of ``#define`` text starting at the name."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text.replace("\\\n", " "), flags=re.S)
    rest = text[len(name):]
    if not rest.startswith("("):
        return None, rest.strip()
    close = rest.find(")")
    params = [p.strip() for p in rest[1:close].split(",") if p.strip()]
    return params, rest[close + 1 :].strip()


def _substitute(body: str, params: list[str], args: list[str]) -> str:
    """Replace macro parameters in ``body`` (``#p`` stringizes, ``##`` pastes)."""
    names = {p.removesuffix("..."): i for i, p in enumerate(params) if p != "..."}
    variadic = len(params) - 1 if params and params[-1].endswith("...") else None
    values = {n: args[i] if i < len(args) else "" for n, i in names.items()}
    if variadic is not None:
        rest = ", ".join(args[variadic:])
        values["__VA_ARGS__"] = rest
        if params[-1] != "...":
            values[params[-1].removesuffix("...")] = rest

    def replace(match):
        token = match.group(0)
        if token.startswith("#") and token != "##":
            name = token[1:].strip()
            return '"' + values[name].replace('"', '\\"') + '"' if name in values else token
        return values.get(token, token)

    return re.sub(r"\s*##\s*", "", _TOKEN.sub(replace, body))


def substitute_parameters(body: str, params: list[str], args: list[str]) -> str:
    """``body`` with the macro's parameters replaced by the call's argument texts (``#p``
    stringizes, ``##`` pastes), as the preprocessor does for one level."""
    return _substitute(body, params, args)

