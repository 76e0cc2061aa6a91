"""OpenMP directives of one C/C++ file, found in libclang's tokens rather than in its AST.

The file is parsed without ``-fopenmp``: the loops are then fully visible, but clang keeps no
trace of the pragmas, so they are found in the raw token stream. A directive is a ``#`` that
starts a logical line, followed by ``pragma omp`` on that line (``\\`` continuations joined).
Token kinds keep pragmas inside comments and string literals out; the preprocessor's skipped
ranges keep out those in inactive ``#if`` branches; a ``#pragma`` inside a ``#define`` does not
start its logical line, so it is not a directive there. ``_Pragma("omp ...")`` is reported as
unsupported (through macros: :mod:`s2s.frontend.openmp.macros`).

Each directive is tied to its associated statement: the first statement after the pragma (an
intervening ``#pragma omp`` makes the statement that pragma plus its own statement). A
``declare target`` ... ``end declare target`` pair gets the enclosed declarations as its
``stmt_span`` (from the first token after the opening pragma to the last one before the
closing pragma), so directives in device functions have it as ``parent``.

The tokens come from :mod:`s2s.frontend.openmp.file_tokens` (read in one piece through ctypes).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.core.fast_cursor import offsets
from s2s.frontend.openmp.clauses import (
    COMMENT,
    IDENT,
    LITERAL,
    PUNCT,
    ClauseParser,
    Tok,
    map_clauses,
    match_directive,
)
from s2s.frontend.openmp.file_tokens import FileTokens
from s2s.frontend.openmp.macros import directive_uses
from s2s.model.openmp import DECLARATIVE, STANDALONE, OmpClause, OmpDirective
from s2s.model.span import SourceSpan

#: Directives without an associated statement that the model's STANDALONE/DECLARATIVE lack.
NO_STATEMENT = (("depobj",), ("scan",), ("interop",), ("error",), ("nothing",), ("allocate",),
                ("groupprivate",), ("assumes",), ("begin", "assumes"), ("end", "assumes"),
                ("begin", "declare", "variant"), ("end", "declare", "variant"),
                ("end", "metadirective"))
#: Region openers and their closing directive.
REGION_PAIRS = {
    ("declare", "target"): ("end", "declare", "target"),
    ("begin", "declare", "target"): ("end", "declare", "target"),
    ("begin", "declare", "variant"): ("end", "declare", "variant"),
    ("begin", "assumes"): ("end", "assumes"),
    ("begin", "metadirective"): ("end", "metadirective"),
}
_REGION_ENDS = frozenset(REGION_PAIRS.values())
_OMP_WORD = re.compile(rb"\bomp\b")
_OMP_ATTRIBUTE = re.compile(rb"\[\s*\[\s*omp\s*::\s*(?:directive|sequence|decl)\b")
_STRING_PREFIX = re.compile(r'^(?:u8|u|U|L)?"')


def extract_directives(ctx: ExtractContext) -> tuple[OmpDirective, ...]:
    """Every ``#pragma omp`` directive of the main file, in source order."""
    uses = directive_uses(ctx)
    if not _OMP_WORD.search(ctx.source) and not uses:  # 'omp' also matches 'compute'...
        return ()
    tokens = FileTokens.of(ctx)
    if tokens is None:
        return ()
    pragmas = [p for p in _find_pragmas(ctx, tokens) if _known(ctx, p)]
    macro = [p for p in macro_pragmas(ctx, tokens, uses) if _known(ctx, p)]
    if macro:
        pragmas = sorted(pragmas + macro, key=lambda p: p.start)
    if not pragmas:
        return ()
    by_first = {p.first: p for p in pragmas}
    for pragma in pragmas:
        pragma.next_code = _next_code(tokens, pragma.last, by_first)
    wanted = {tokens.starts[p.next_code] for p in pragmas
              if p.next_code is not None and p.next_code not in by_first}
    scan = _AstScan(ctx, [p.start for p in pragmas], wanted)
    parsed = []
    for pragma in pragmas:
        pragma.function, pragma.template = scan.function_at(pragma.start)
        try:
            _parse_pragma(ctx, pragma)
            parsed.append(pragma)
        except Exception as exc:  # a model bug must not lose the whole file
            ctx.warn(f"internal error while reading this OpenMP directive ({type(exc).__name__}: "
                     f"{exc}); it is ignored", "omp-internal", _span(ctx, pragma, pragma.start, pragma.end))
    _associate(ctx, tokens, parsed, scan.starts)
    _pair_regions(ctx, tokens, parsed)
    return _build(ctx, parsed)


# -- finding pragmas ------------------------------------------------------------------------


@dataclass
class _Pragma:
    """A ``#pragma omp`` under construction."""

    first: int  # token index of '#'
    last: int  # token index one past the pragma's last token
    start: int
    end: int
    body: list[Tok]  # non-comment tokens after 'omp'
    template: str | None = None
    function: str | None = None
    words: tuple[str, ...] = ()
    clauses: tuple[OmpClause, ...] = ()
    maps: tuple = ()
    stmt: tuple[int, int] | None = None
    next_code: int | None = None
    needs_stmt: bool = False
    #: a directive written through a macro (s2s.frontend.openmp.macro_pragmas): the text its
    #: ``body`` tokens index (their offsets are not the file's)
    text: str | None = None


def _find_pragmas(ctx: ExtractContext, tokens: FileTokens) -> list[_Pragma]:
    out = []
    source = ctx.source
    pos = source.find(b"#")
    while pos >= 0:
        i = tokens.index_at(pos)
        if i is not None and tokens.kinds[i] == PUNCT and tokens.ends[i] == pos + 1:
            pragma = _pragma_at(tokens, i)
            if pragma is not None:
                out.append(pragma)
        pos = source.find(b"#", pos + 1)
    for match in re.finditer(rb"\b_Pragma\b", source):
        _pragma_operator(ctx, tokens, match.start())
    for match in _OMP_ATTRIBUTE.finditer(source):
        i = tokens.index_at(match.start())
        if i is not None and tokens.kinds[i] == PUNCT and not tokens.is_skipped(match.start()):
            ctx.warn("OpenMP attribute syntax ([[omp::directive(...)]]) is not supported; this "
                     "directive is ignored", "omp-attribute-syntax",
                     ctx.index.span(match.start(), match.end()))
    return out


def _pragma_at(tokens: FileTokens, i: int) -> _Pragma | None:
    """The ``#pragma omp`` directive starting at the ``#`` token ``i``, if it is one."""
    n = len(tokens.starts)
    if i + 2 >= n or tokens.is_skipped(tokens.starts[i]) or not tokens.at_line_start(i):
        return None
    last = tokens.line_end(i)
    code = [j for j in range(i + 1, last) if tokens.kinds[j] != COMMENT]
    if len(code) < 2 or tokens.spelling(code[0]) != "pragma" or tokens.spelling(code[1]) != "omp":
        return None
    end = tokens.logical_line_end(tokens.ends[last - 1])
    return _Pragma(i, last, tokens.starts[i], end, [tokens.tok(j) for j in code[2:]])


def _pragma_operator(ctx: ExtractContext, tokens: FileTokens, offset: int) -> None:
    """Report ``_Pragma("omp ...")`` at ``offset`` as unsupported.

    Inside a ``#define`` it is no directive at that place: :mod:`s2s.frontend.openmp.macros`
    reports the places where the macro is used instead.
    """
    i = tokens.index_at(offset)
    n = len(tokens.starts)
    if i is None or tokens.kinds[i] != IDENT or tokens.is_skipped(offset) or i + 2 >= n:
        return None
    if tokens.spelling(i + 1) != "(" or tokens.kinds[i + 2] != LITERAL:
        return None
    literal = tokens.spelling(i + 2)
    if not _STRING_PREFIX.match(literal):
        return None
    content = literal[literal.index('"') + 1 : -1].split()
    if not content or content[0] != "omp":
        return None
    if _defined_macro(tokens, i) is not None:
        return None
    end = tokens.ends[i + 3] if i + 3 < n and tokens.spelling(i + 3) == ")" else tokens.ends[i + 2]
    ctx.warn('_Pragma("omp ...") is not supported; this directive is ignored',
             "omp-pragma-operator", ctx.index.span(offset, end))
    return None


def _defined_macro(tokens: FileTokens, i: int) -> str | None:
    """The macro name if token ``i`` sits in the body of a ``#define``."""
    j = tokens.line_first(i)
    if j + 2 < i + 1 and tokens.spelling(j) == "#" and tokens.spelling(j + 1) == "define":
        return tokens.spelling(j + 2)
    return None


# -- directives written through macros -----------------------------------------------------


def macro_pragmas(ctx: ExtractContext, tokens: FileTokens, uses) -> list[_Pragma]:
    """The target directives written through ``_Pragma`` macros (PRK's ``OMP_TARGET( teams
    distribute parallel for )``; ``uses`` from :func:`s2s.frontend.openmp.macros.
    directive_uses`), as directives of their own: planned like any other, their span (the
    macro use) flagged as a macro expansion, so nothing is ever edited inside it; a data
    directive may go on a line before the use or after its statement. The clauses are read
    from the expansion's tokens, spelled anew (``text``). A use inside another macro's
    arguments, or in an inactive ``#if`` branch, is not one."""
    out = []
    for use, operand in uses:
        if operand[0] != "target":
            continue                # host directives (parallel, simd): only said (macros)
        start, end = offsets(use)
        if ctx.index.span(start, end).macro != use.spelling or tokens.is_skipped(start):
            continue
        first, last = tokens.index_at(start), tokens.index_at(max(start, end - 1))
        if first is None or last is None:
            continue
        text, body = _spelled(operand)
        out.append(_Pragma(first, last + 1, start, end, body, text=text))
    return out


def _spelled(operand: list[str]) -> tuple[str, list[Tok]]:
    """The directive's tokens as one text (a blank only between two names or numbers) and
    as tokens whose offsets index that text."""
    text, body = "", []
    for token in operand:
        if text and (token[0].isalnum() or token[0] == "_") and \
                (text[-1].isalnum() or text[-1] == "_"):
            text += " "
        kind = IDENT if token[0].isalpha() or token[0] == "_" else \
            LITERAL if token[0].isdigit() or token[0] in "'\"" else PUNCT
        body.append(Tok(kind, token, len(text), len(text) + len(token)))
        text += token
    return text, body


# -- parsing one pragma ---------------------------------------------------------------------


def _span(ctx: ExtractContext, pragma: _Pragma, start: int, end: int) -> SourceSpan:
    return ctx.index.span(start, end, pragma.template)


def _known(ctx: ExtractContext, pragma: _Pragma) -> bool:
    """Set the directive name; False (with a warning) when it is no known directive, which is
    then treated like any other preprocessor line."""
    pragma.words = match_directive(pragma.body)
    if not pragma.words:
        what = f"'{pragma.body[0].text}'" if pragma.body else "nothing"
        ctx.warn(f"unknown OpenMP directive: {what} after '#pragma omp'; it is ignored",
                 "omp-unknown-directive", _span(ctx, pragma, pragma.start, pragma.end))
    return bool(pragma.words)


def _parse_pragma(ctx: ExtractContext, pragma: _Pragma) -> None:
    """Fill in clauses, maps and whether a statement follows."""
    words = pragma.words

    def span_of(start: int, end: int) -> SourceSpan:
        return _span(ctx, pragma, start, end)

    text_of = ctx.index.text
    if pragma.text is not None:     # through a macro: each clause is the macro use
        def span_of(start: int, end: int) -> SourceSpan:
            return _span(ctx, pragma, pragma.start, pragma.end)

        def text_of(start: int, end: int) -> str:
            return pragma.text[start:end]
    parser = ClauseParser(span_of, text_of, ctx.warn)
    clauses = parser.parse(pragma.body[len(words) :], words)
    pragma.clauses = tuple(clauses)
    pragma.maps = map_clauses(clauses, words, ctx.warn)
    pragma.needs_stmt = _needs_statement(words, clauses)


def _needs_statement(words: tuple[str, ...], clauses: Sequence[OmpClause]) -> bool:
    def starts_with(kinds) -> bool:
        return any(words[: len(k)] == k for k in kinds)

    if starts_with(STANDALONE) or starts_with(DECLARATIVE) or starts_with(NO_STATEMENT):
        return False
    if words == ("ordered",) and any(c.name in ("depend", "doacross") for c in clauses):
        return False  # the stand-alone form of 'ordered'
    return True


# -- associated statements, regions, nesting ------------------------------------------------


def _associate(ctx: ExtractContext, tokens: FileTokens, pragmas: list[_Pragma],
               starts: dict[int, tuple[int, int]]) -> None:
    """Give each directive that governs a statement its statement's byte range."""
    by_first = {p.first: p for p in pragmas}
    for pragma in reversed(pragmas):  # inner pragmas first: an outer one may end with them
        if not pragma.needs_stmt:
            continue
        j = pragma.next_code
        if j is None:
            where = "the end of the file"
        elif j in by_first:
            inner = by_first[j]
            if inner.stmt is not None:
                pragma.stmt = (inner.start, inner.stmt[1])
                continue
            where = f"'#pragma omp {' '.join(inner.words)}'"
        else:
            offset = tokens.starts[j]
            found = starts.get(offset)
            if found is not None:
                pragma.stmt = (offset, _statement_end(tokens, found[1]))
                continue
            where = f"'{tokens.spelling(j)}'"
        ctx.warn(f"'#pragma omp {' '.join(pragma.words)}' is followed by {where}, not by a "
                 "statement", "omp-no-statement", _span(ctx, pragma, pragma.start, pragma.end))


def _next_code(tokens: FileTokens, i: int, pragma_firsts) -> int | None:
    """The next token that is code or an omp pragma: comments, inactive regions and other
    preprocessor lines (``#ifdef``, ``#pragma unroll``) are skipped."""
    n = len(tokens.starts)
    while i < n:
        if tokens.kinds[i] == COMMENT or tokens.is_skipped(tokens.starts[i]):
            i += 1
        elif i in pragma_firsts:
            return i
        elif tokens.kinds[i] == PUNCT and tokens.spelling(i) == "#" and tokens.at_line_start(i):
            i = tokens.line_end(i)
        else:
            return i
    return None


def _statement_end(tokens: FileTokens, end: int) -> int:
    """Extend a statement's extent over its ``;`` (clang leaves it out of expressions,
    ``return``, ``do ... while``) unless the statement ends with ``}`` or ``;`` already."""
    last = bisect.bisect_left(tokens.ends, end)
    if last >= len(tokens.ends) or tokens.ends[last] != end:
        return end
    if tokens.spelling(last) in ("}", ";"):
        return end
    j = last + 1
    while j < len(tokens.starts) and tokens.kinds[j] == COMMENT:
        j += 1
    if j < len(tokens.starts) and tokens.spelling(j) == ";":
        return tokens.ends[j]
    return end


def _pair_regions(ctx: ExtractContext, tokens: FileTokens, pragmas: list[_Pragma]) -> None:
    """``declare target`` ... ``end declare target`` (and other begin/end pairs): the opener's
    stmt_span covers the declarations between them."""
    stack: list[_Pragma] = []
    for pragma in pragmas:
        if pragma.words in REGION_PAIRS and _opens_region(pragma):
            stack.append(pragma)
        elif pragma.words in _REGION_ENDS:
            if not stack or REGION_PAIRS[stack[-1].words] != pragma.words:
                ctx.warn(f"'#pragma omp {' '.join(pragma.words)}' without a matching opening "
                         "directive", "omp-parse", _span(ctx, pragma, pragma.start, pragma.end))
                continue
            opener = stack.pop()
            first = _first_code_between(tokens, opener.last, pragma.first)
            if first is None:
                opener.stmt = (pragma.start, pragma.start)
            else:
                last = pragma.first - 1
                while tokens.kinds[last] == COMMENT:
                    last -= 1
                opener.stmt = (tokens.starts[first], tokens.ends[last])
    for opener in stack:
        ctx.warn(f"'#pragma omp {' '.join(opener.words)}' is never closed", "omp-parse",
                 _span(ctx, opener, opener.start, opener.end))


def _opens_region(pragma: _Pragma) -> bool:
    """``declare target`` opens a region only without a list (``to``/``enter``/``link``/``(x)``)."""
    if pragma.words != ("declare", "target"):
        return True
    return not any(c.name in ("to", "enter", "link", "target") for c in pragma.clauses)


def _first_code_between(tokens: FileTokens, i: int, stop: int) -> int | None:
    while i < stop and tokens.kinds[i] == COMMENT:
        i += 1
    return i if i < stop else None


def _build(ctx: ExtractContext, pragmas: list[_Pragma]) -> tuple[OmpDirective, ...]:
    """Freeze the directives, with each one's innermost enclosing directive as ``parent``."""
    out: list[OmpDirective] = []
    open_stack: list[tuple[int, int, int]] = []  # (stmt start, stmt end, index)
    for pragma in pragmas:
        while open_stack and not (open_stack[-1][0] <= pragma.start and pragma.end <= open_stack[-1][1]):
            open_stack.pop()
        parent = open_stack[-1][2] if open_stack else None
        stmt_span = None
        if pragma.stmt is not None:
            stmt_span = _span(ctx, pragma, *pragma.stmt)
            open_stack.append((pragma.stmt[0], pragma.stmt[1], len(out)))
        out.append(OmpDirective(
            words=pragma.words,
            span=_span(ctx, pragma, pragma.start, pragma.end),
            clauses=pragma.clauses,
            maps=pragma.maps,
            stmt_span=stmt_span,
            function=pragma.function,
            parent=parent,
        ))
    return tuple(out)


# -- the AST around the pragmas ------------------------------------------------------------


class _AstScan:
    """One guided pre-order pass over ``ctx.nodes()``: only subtrees containing an offset of
    interest are entered (walking every cursor's extent costs seconds on big files).

    ``starts`` maps each wanted statement offset to the (start, end) of the outermost cursor
    starting there; ``function_at`` names the innermost function definition around a pragma.
    """

    def __init__(self, ctx: ExtractContext, pragma_offsets: Sequence[int], wanted: set[int]):
        self.starts: dict[int, tuple[int, int]] = {}
        self._functions: list[tuple[int, int, str, str | None]] = []
        self._sorted: list[int] | None = None
        interesting = sorted(set(pragma_offsets) | wanted)
        ordered_wanted = sorted(wanted)
        container: dict[int, object] = {}  # wanted offset -> innermost visited cursor around it
        skip_below: int | None = None
        for node in ctx.nodes():
            if skip_below is not None:
                if node.depth > skip_below:
                    continue
                skip_below = None
            start, end = offsets(node.cursor)
            if start in wanted and start not in self.starts and end > start:
                self.starts[start] = (start, end)
            i = bisect.bisect_right(interesting, start)
            if i == len(interesting) or interesting[i] >= end:
                skip_below = node.depth  # nothing of interest strictly inside
                continue
            lo = bisect.bisect_right(ordered_wanted, start)
            for w in ordered_wanted[lo : bisect.bisect_left(ordered_wanted, end, lo)]:
                container[w] = node.cursor
            if node.kind in FUNCTION_KINDS and node.cursor.is_definition():
                self._functions.append((start, end, node.cursor.spelling, node.template))
        for w in wanted - self.starts.keys():
            if w in container:
                self._from_macro(container[w], w)

    def _from_macro(self, parent, offset: int) -> None:
        """A statement written as a macro call (``FOR_EACH(i, n) {...}``, ``RESET(x);``):
        ``ctx.nodes()`` leaves out cursors spelled in a macro, so look among the unfiltered
        children of the innermost cursor around it (their extents are the macro call's)."""
        for child in parent.get_children():
            start, end = offsets(child)
            if start == offset and end > start:
                self.starts[offset] = (start, end)
                return

    def function_at(self, offset: int) -> tuple[str | None, str | None]:
        """(name, template) of the innermost function definition containing ``offset``."""
        if self._sorted is None:
            self._functions.sort(key=lambda f: (f[0], -f[1]))
            self._sorted = [f[0] for f in self._functions]
        i = bisect.bisect_right(self._sorted, offset) - 1
        while i >= 0:  # functions nest or are disjoint: the last one containing it is innermost
            start, end, name, template = self._functions[i]
            if offset < end:
                return name, template
            i -= 1
        return None, None
