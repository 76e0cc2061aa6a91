"""Macros that expand to OpenMP directives through ``_Pragma``, found where they are used.

Real code hides directives behind macros: the Parallel Research Kernels write
``OMP_TARGET( teams distribute parallel for )`` with ``#define OMP_TARGET(x) PRAGMA(omp target
x)`` and ``#define PRAGMA(x) _Pragma(#x)`` in a header. The file is parsed without
``-fopenmp`` and the directive scan reads ``#pragma`` tokens, so such a directive would be
invisible: its kernel's pointers would keep no mapping while the summary said nothing was
left. Each such use is therefore found from the preprocessing record (the macro instantiations
of the main file and the definitions they refer to, expanded through macros that call other
macros), reported, and kept in the model (``MacroDirective``) so the OpenMP pass counts it.

Only files whose text, or a project header's, spells ``_Pragma`` are looked at: collecting
the unit's macro definitions costs a quarter of a second on a file that includes <vector>.
"""

from __future__ import annotations

import re

from s2s.bounded_read import read_at_most
from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.toolchain import configure_libclang
from s2s.model.openmp import MacroDirective
from s2s.model.span import SourceSpan

#: How many macro definitions deep a use is expanded to reach ``_Pragma``.
MAX_DEPTH = 6
#: Largest project header read to look for ``_Pragma``.
MAX_HEADER_BYTES = 8 * 1024 * 1024
#: Words that, right after ``target``, make a data directive rather than a kernel.
_DATA_WORDS = ("data", "update", "enter", "exit")
_WORD = re.compile(r"[A-Za-z_]\w*")

WARNING_ID = "omp-pragma-operator"


def extract_macro_directives(ctx: ExtractContext, project_headers: tuple[str, ...],
                             modelled: frozenset[SourceSpan] = frozenset()
                             ) -> tuple[MacroDirective, ...]:
    """Every use, in the main file, of a macro that expands to an OpenMP directive, but those
    the directive extractor made directives of (``modelled``, their spans: a target construct
    or data directive standing as a statement of a function, :func:`target_uses`)."""
    found = []
    for use, operand in directive_uses(ctx, project_headers):
        words = [t for t in operand if _WORD.fullmatch(t)]
        span = ctx.span(use)
        if span in modelled:
            continue
        said = f"macro '{use.spelling}' expands to 'omp {' '.join(words[:4])}' through _Pragma"
        if words[0] != "target":  # moves no data (parallel, simd, ...): only said
            ctx.warn(f"{said}, which s2s does not read: left as written", WARNING_ID, span)
            continue
        is_target = is_kernel(words)
        found.append(MacroDirective(span, use.spelling, is_target))
        tail = ("; the pointers its kernel uses keep only what the macro's text maps (one "
                "it does not map is an implicit zero-length section, wrong on a GPU)"
                if is_target else "")
        ctx.warn(f"{said}, a target {'construct' if is_target else 'data directive'} that s2s "
                 f"neither analyses nor rewrites: left as written{tail}", WARNING_ID, span)
    return tuple(found)


def directive_uses(ctx: ExtractContext, project_headers: tuple[str, ...] | None = None
                   ) -> list[tuple[object, list[str]]]:
    """(macro use, tokens after ``omp``) of every use in the main file of a macro that
    expands to an OpenMP directive through ``_Pragma``, in source order (once per context)."""
    def build(c: ExtractContext) -> list[tuple[object, list[str]]]:
        uses = [u for u in c.top_level if u.kind.name == "MACRO_INSTANTIATION"]
        headers = c.project_headers() if project_headers is None else project_headers
        if not uses or not _spells_pragma(c.source, headers):
            return []
        expander = _Expander(c)
        found = []
        for use in uses:
            operand = expander.directive_tokens(use)
            if operand and _WORD.fullmatch(operand[0]):
                found.append((use, operand))
        return found
    return ctx.memo("openmp.macro_directive_uses", build)


def directive_macro_names(unit, headers: tuple[str, ...]) -> tuple[bytes, ...]:
    """Names of the macros the project ``headers`` define that reach ``_Pragma`` (directly
    or through another such macro): a header using one of them may hold directives written
    through macros (stencil_target.h's ``OMP_TARGET`` kernels, with ``OMP_TARGET`` defined in
    prk_openmp.h), so it is modelled like a header with ``#pragma omp``. Empty when no
    project header spells ``_Pragma``."""
    if not _spells_pragma(b"", headers):
        return ()
    wanted = set(headers)
    bodies: dict[str, set[str]] = {}
    for cursor in unit.cursor.get_children():
        if cursor.kind.name != "MACRO_DEFINITION":
            continue
        file = cursor.location.file
        if file is None or file.name not in wanted:
            continue
        bodies[cursor.spelling] = {t.spelling for t in cursor.get_tokens()} - {cursor.spelling}
    found = {name for name, body in bodies.items() if "_Pragma" in body}
    grew = True
    while grew:
        more = {name for name, body in bodies.items() if name not in found and body & found}
        found |= more
        grew = bool(more)
    return tuple(name.encode() for name in sorted(found))


def is_kernel(words: list[str]) -> bool:
    """Whether directive words (after ``omp``) start a target construct that runs code."""
    return bool(words) and words[0] == "target" and (len(words) == 1
                                                     or words[1] not in _DATA_WORDS)


def _spells_pragma(source: bytes, headers: tuple[str, ...]) -> bool:
    if b"_Pragma" in source:
        return True
    for header in headers:
        try:
            with open(header, "rb") as file:
                if b"_Pragma" in read_at_most(file, MAX_HEADER_BYTES - 1):
                    return True
        except OSError:
            continue
    return False


class _Expander:
    """Expands a macro use far enough to see the ``_Pragma`` operand it produces.

    Parameters are replaced by the use's arguments (``#x`` by the argument's words), nested
    macros by their bodies, up to :data:`MAX_DEPTH`; token pasting is not modelled (a pasted
    name is no OpenMP word)."""

    def __init__(self, ctx: ExtractContext):
        self._ctx = ctx
        self._by_name: dict[str, object] | None = None
        self._defs: dict[str, tuple[list[str] | None, list[str]]] = {}

    def directive_words(self, use) -> list[str] | None:
        """The directive words after ``omp`` that ``use`` expands to, or None."""
        operand = self.directive_tokens(use)
        return None if operand is None else [t for t in operand if _WORD.fullmatch(t)]

    def directive_tokens(self, use) -> list[str] | None:
        """Every token after ``omp`` (names, clauses and their punctuation) of the directive
        ``use`` expands to, or None."""
        tokens = [t.spelling for t in use.get_tokens()]
        if not tokens:
            return None
        return _pragma_operand(self._expand(tokens, MAX_DEPTH, frozenset()))

    def _definition(self, name: str) -> tuple[list[str] | None, list[str]] | None:
        """(parameters or None for an object-like macro, replacement tokens) of ``name``."""
        if name in self._defs:
            return self._defs[name]
        if self._by_name is None:
            self._by_name = {c.spelling: c for c in self._ctx.unit.cursor.get_children()
                             if c.kind.name == "MACRO_DEFINITION"}
        cursor = self._by_name.get(name)
        found = None
        if cursor is not None:
            found = _split_definition(cursor, [t.spelling for t in cursor.get_tokens()])
        self._defs[name] = found
        return found

    def _expand(self, tokens: list[str], depth: int, active: frozenset[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(tokens):
            name = tokens[i]
            definition = (self._definition(name) if depth > 0 and name not in active
                          and _WORD.fullmatch(name) and name != "_Pragma" else None)
            if definition is None:
                out.append(name)
                i += 1
                continue
            params, body = definition
            if params is None:
                out += self._expand(body, depth - 1, active | {name})
                i += 1
                continue
            args, after = _arguments(tokens, i + 1)
            if args is None:
                out.append(name)
                i += 1
                continue
            out += self._expand(_substitute(body, params, args), depth - 1, active | {name})
            i = after
        return out


def _split_definition(cursor, tokens: list[str]) -> tuple[list[str] | None, list[str]]:
    """A definition's tokens (name first) as (parameters, replacement list)."""
    if len(tokens) > 1 and tokens[1] == "(" and _function_like(cursor):
        close = tokens.index(")", 1) if ")" in tokens[1:] else len(tokens) - 1
        params = [t for t in tokens[2:close] if t != ","]
        return params, tokens[close + 1:]
    return None, tokens[1:]


def _function_like(cursor) -> bool:
    """``#define F(x)`` (function-like) and ``#define F (x)`` (object-like) differ only by the
    space: libclang says which."""
    lib = configure_libclang().conf.lib
    return bool(lib.clang_Cursor_isMacroFunctionLike(cursor))


def _arguments(tokens: list[str], i: int) -> tuple[list[list[str]] | None, int]:
    """The comma-separated arguments of a call whose ``(`` is at ``i``; (None, i) if none."""
    if i >= len(tokens) or tokens[i] != "(":
        return None, i
    args: list[list[str]] = [[]]
    depth = 0
    for j in range(i + 1, len(tokens)):
        token = tokens[j]
        if token == ")" and depth == 0:
            return args, j + 1
        if token == "," and depth == 0:
            args.append([])
            continue
        depth += token == "("
        depth -= token == ")"
        args[-1].append(token)
    return None, i


def _substitute(body: list[str], params: list[str], args: list[list[str]]) -> list[str]:
    values = dict(zip(params, args, strict=False))  # a variadic call has more
    if params and params[-1] == "...":
        values["__VA_ARGS__"] = [t for a in args[len(params) - 1:] for t in (*a, ",")][:-1]
    out: list[str] = []
    for token in body:
        if token == "#" or token == "##":
            continue
        out += values.get(token, [token])
    return out


def _literal_text(token: str) -> str:
    """The text of a string literal token (``"omp for"``, ``L"omp for"``), else the token."""
    if token.endswith('"') and '"' in token[:-1]:
        return token[token.index('"') + 1 : -1]
    return token


#: one token of a directive's text: a name, a number, a two-character operator, any other mark
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|::|\S")


def _pragma_operand(tokens: list[str]) -> list[str] | None:
    """The tokens after ``omp`` of the first ``_Pragma( ... )`` operand in ``tokens`` that is
    an OpenMP directive (a string literal operand read as the tokens it spells)."""
    for i, token in enumerate(tokens):
        if token != "_Pragma":
            continue
        args, _after = _arguments(tokens, i + 1)
        if not args:
            continue
        found = _TOKEN.findall(" ".join(_literal_text(t) for t in args[0]))
        if found and found[0] == "omp":
            return found[1:]
    return None
