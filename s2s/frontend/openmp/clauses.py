"""OpenMP directive names and clause syntax, parsed from the tokens of one ``#pragma omp`` line.

The C/C++ files are parsed without ``-fopenmp`` (so clang never sees the clauses), hence this
small parser over libclang's raw tokens. It knows the OpenMP 5.2 directive names, so clause
names are never mistaken for directive words (``target update to(x)``: ``to`` is a clause),
and the shapes of the clause arguments: list clauses get their modifiers (before the
top-level ``:``, or after it for ``linear``/``aligned``) and structured list items with array
sections; every other clause keeps its argument as the exact source text. It never raises on
malformed input: it reports through ``warn`` and keeps what it could read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from s2s.model.openmp import ArraySection, ListItem, MapClause, OmpClause
from s2s.model.span import Expr, SourceSpan

# libclang's CXTokenKind values.
PUNCT, KEYWORD, IDENT, LITERAL, COMMENT = range(5)

_SPLICE = re.compile(r"\\[ \t]*\r?\n")
_LEADING_SPLICES = re.compile(r"(?:\\[ \t]*\r?\n)+")


class Tok(NamedTuple):
    """One token: kind (CXTokenKind), spelling (line splices removed) and byte offsets."""

    kind: int
    text: str
    start: int
    end: int


def clean_spelling(raw: str) -> str:
    """A token's spelling with backslash-newline splices removed (as the compiler sees it)."""
    return _SPLICE.sub("", raw) if "\\" in raw else raw


def _names(*lines: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(name.split()) for line in lines for name in line.split(",") if name.strip())


#: Every OpenMP 5.2 directive name (C/C++ spelling), combined and composite ones included,
#: plus the 4.5/5.0 names still accepted by compilers (``master``, ``parallel master``).
DIRECTIVES = _names(
    "parallel, for, for simd, simd, loop, sections, section, single, scope, masked, master,"
    "workshare, task, taskloop, taskloop simd, taskgroup, taskwait, taskyield, barrier,"
    "critical, atomic, flush, ordered, depobj, scan, cancel, cancellation point, teams,"
    "distribute, distribute simd, distribute parallel for, distribute parallel for simd,"
    "target, target data, target enter data, target exit data, target update,",
    "parallel for, parallel for simd, parallel loop, parallel sections, parallel workshare,"
    "parallel masked, parallel master, parallel masked taskloop, parallel masked taskloop simd,"
    "parallel master taskloop, parallel master taskloop simd, masked taskloop,"
    "masked taskloop simd, master taskloop, master taskloop simd,",
    "teams distribute, teams distribute simd, teams distribute parallel for,"
    "teams distribute parallel for simd, teams loop,",
    "target parallel, target parallel for, target parallel for simd, target parallel loop,"
    "target simd, target teams, target teams distribute, target teams distribute simd,"
    "target teams distribute parallel for, target teams distribute parallel for simd,"
    "target teams loop,",
    "declare target, begin declare target, end declare target, declare reduction,"
    "declare mapper, declare simd, declare variant, begin declare variant, end declare variant,"
    "threadprivate, groupprivate, requires, allocate, allocators, assume, assumes, begin assumes,"
    "end assumes, metadirective, begin metadirective, end metadirective, interop, dispatch,"
    "error, nothing, tile, unroll",
)
_LONGEST = max(len(d) for d in DIRECTIVES)

#: Directives that take a parenthesised argument right after their name (``critical(name)``).
#: The argument becomes the first clause, named after the directive's last word.
ARG_DIRECTIVES = _names(
    "critical, flush, threadprivate, groupprivate, allocate, declare target, declare reduction,"
    "declare mapper, declare simd, declare variant, depobj")
#: Of those, the ones whose argument is a variable list.
ARG_LIST_DIRECTIVES = _names("flush, threadprivate, groupprivate, allocate, declare target")

#: Clauses whose argument is ``[modifiers :] list``.
LIST_CLAUSES = frozenset({
    "map", "to", "from", "private", "firstprivate", "lastprivate", "shared", "reduction",
    "in_reduction", "task_reduction", "is_device_ptr", "use_device_ptr", "use_device_addr",
    "has_device_addr", "depend", "doacross", "allocate", "copyin", "copyprivate", "uniform",
    "link", "enter", "nontemporal", "inclusive", "exclusive", "affinity", "adjust_args",
    "local",
})
#: List clauses whose ``:`` comes after the list (``linear(i: 2)``, ``aligned(p: 64)``).
LIST_THEN_COLON = frozenset({"linear", "aligned"})
#: Non-list clauses with optional ``modifier:`` prefixes (``if(target: c)``, ``schedule(monotonic: static)``).
MODIFIER_CLAUSES = frozenset({"if", "schedule", "defaultmap", "device", "num_tasks", "grainsize",
                              "order", "num_threads"})
MAP_TYPES = frozenset({"to", "from", "tofrom", "alloc", "release", "delete"})
MAP_MODIFIERS = frozenset({"always", "close", "present", "mapper", "iterator", "ompx_hold"})
LINEAR_MODIFIERS = frozenset({"val", "ref", "uval", "step"})

KNOWN_CLAUSES = LIST_CLAUSES | LIST_THEN_COLON | MODIFIER_CLAUSES | frozenset({
    "default", "proc_bind", "simdlen", "safelen", "collapse", "ordered", "nowait",
    "dist_schedule", "bind", "num_teams", "thread_limit", "final", "untied", "mergeable",
    "priority", "nogroup", "detach", "hint", "filter", "indirect", "device_type",
    "uses_allocators", "allocator", "align", "sizes", "partial", "full", "read", "write", "update",
    "capture", "compare", "fail", "weak", "seq_cst", "acq_rel", "acquire", "release", "relaxed",
    "threads", "simd", "destroy", "init", "use", "novariants", "nocontext", "interop",
    "append_args", "match", "when", "otherwise", "at", "severity", "message", "inbranch",
    "notinbranch", "unified_address", "unified_shared_memory", "reverse_offload",
    "dynamic_allocators", "atomic_default_mem_order", "self_maps", "parallel", "sections", "for",
    "taskgroup", "absent", "contains", "holds", "no_openmp", "no_openmp_routines",
    "no_parallelism", "memscope", "depobj", "inscan", "initializer",
})

Warn = Callable[[str, str, SourceSpan], None]
SpanOf = Callable[[int, int], SourceSpan]
TextOf = Callable[[int, int], str]

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


def match_directive(toks: Sequence[Tok]) -> tuple[str, ...]:
    """The longest known directive name the tokens start with (``()`` when none)."""
    words: list[str] = []
    for tok in toks[:_LONGEST]:
        if tok.kind not in (IDENT, KEYWORD):
            break
        words.append(tok.text)
    for n in range(len(words), 0, -1):
        if tuple(words[:n]) in DIRECTIVES:
            return tuple(words[:n])
    return ()


def matching_close(toks: Sequence[Tok], i: int) -> int | None:
    """Index of the bracket closing ``toks[i]`` (an opening bracket), or None if unbalanced."""
    stack = []
    for j in range(i, len(toks)):
        text = toks[j].text
        if toks[j].kind != PUNCT:
            continue
        if text in _OPEN:
            stack.append(_OPEN[text])
        elif text in _CLOSE:
            if not stack or stack.pop() != text:
                return None
            if not stack:
                return j
    return None


def split_top(toks: Sequence[Tok], sep: str = ",") -> list[list[Tok]]:
    """Split at punctuation ``sep`` outside any bracket."""
    parts: list[list[Tok]] = [[]]
    depth = 0
    for tok in toks:
        if tok.kind == PUNCT:
            if tok.text in _OPEN:
                depth += 1
            elif tok.text in _CLOSE:
                depth -= 1
            elif tok.text == sep and depth == 0:
                parts.append([])
                continue
        parts[-1].append(tok)
    return parts


def top_colons(toks: Sequence[Tok]) -> list[int]:
    """Indices of the ``:`` outside brackets that separate parts (not ``?:``, not ``::``)."""
    found = []
    depth = questions = 0
    skip_next = False
    for i, tok in enumerate(toks):
        if skip_next:
            skip_next = False
            continue
        if tok.kind != PUNCT:
            continue
        if tok.text in _OPEN:
            depth += 1
        elif tok.text in _CLOSE:
            depth -= 1
        elif depth == 0 and tok.text == "?":
            questions += 1
        elif depth == 0 and tok.text == ":":
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and nxt.text == ":" and nxt.start == tok.end:
                skip_next = True  # C lexes '::' as two colons
            elif questions:
                questions -= 1
            else:
                found.append(i)
    return found


class ClauseParser:
    """Builds model clauses from tokens; ``span_of``/``text_of`` map byte offsets to the file."""

    def __init__(self, span_of: SpanOf, text_of: TextOf, warn: Warn):
        self.span_of = span_of
        self.text_of = text_of
        self.warn = warn

    # -- helpers ---------------------------------------------------------------------------

    def expr(self, toks: Sequence[Tok]) -> Expr | None:
        """The source text of a non-empty token run (line splices removed), or None."""
        if not toks:
            return None
        start, end = self._begin(toks[0]), toks[-1].end
        return Expr(clean_spelling(self.text_of(start, end)), self.span_of(start, end))

    def _text(self, toks: Sequence[Tok]) -> str:
        """The source text of a token run as the compiler sees it (line splices removed): a
        section ``a[0:n*\\<newline>m]`` has the length ``n*m`` of the same section on one line."""
        return clean_spelling(self.text_of(self._begin(toks[0]), toks[-1].end)) if toks else ""

    def _begin(self, tok: Tok) -> int:
        """Where ``tok``'s own characters start: clang counts a line splice (backslash-newline)
        right before a token as part of it, so ``map( \\<newline>from: a[0:n])`` has a token
        ``from`` starting at the backslash; its text must not (the modifier is ``from``)."""
        if tok.end - tok.start <= len(tok.text):
            return tok.start
        raw = self.text_of(tok.start, tok.end)
        lead = _LEADING_SPLICES.match(raw)
        return tok.start + len(lead.group().encode()) if lead else tok.start

    def modifiers(self, toks: Sequence[Tok], one: bool = False) -> tuple[str, ...]:
        """Modifier texts before a ``:``: comma separated, or blank separated (``always to``).

        ``one`` keeps the whole prefix as one blank-normalised modifier (``if(target data: c)``).
        """
        if one:
            return (" ".join(t.text for t in toks),) if toks else ()
        out: list[str] = []
        for piece in split_top(toks):
            groups = self._word_groups(piece)
            if groups is None:
                if piece:
                    out.append(self._text(piece))
            else:
                out.extend(self._text(g) for g in groups)
        return tuple(out)

    @staticmethod
    def _word_groups(piece: Sequence[Tok]) -> list[Sequence[Tok]] | None:
        """``name`` or ``name(...)`` groups making up ``piece``, or None if it is anything else."""
        groups = []
        i = 0
        while i < len(piece):
            if piece[i].kind not in (IDENT, KEYWORD):
                return None
            j = i + 1
            if j < len(piece) and piece[j].text == "(":
                close = matching_close(piece, j)
                if close is None:
                    return None
                j = close + 1
            groups.append(piece[i:j])
            i = j
        return groups or None

    # -- list items ------------------------------------------------------------------------

    def items(self, toks: Sequence[Tok], clause: str) -> tuple[ListItem, ...]:
        out = []
        for piece in split_top(toks):
            if not piece:
                where = self.span_of(toks[0].start, toks[-1].end) if toks else None
                if where is not None:
                    self.warn(f"empty list item in '{clause}' clause", "omp-parse", where)
                continue
            out.append(self.item(piece))
        return tuple(out)

    def item(self, toks: Sequence[Tok]) -> ListItem:
        """``a``, ``a[0:n]``, ``s.x[1:m]``, ``p->v[:n]``, ``(*p)[0:n]``, ``a[0:n][0:m]``.

        The sections are the trailing chain of subscripts; ``base`` is what precedes it and
        ``root`` the first variable of the base (after an array-shaping ``([n][m])`` prefix).
        """
        end = len(toks)
        brackets: list[tuple[int, int]] = []
        while end > 1 and toks[end - 1].kind == PUNCT and toks[end - 1].text == "]":
            open_i = self._matching_open(toks, end - 1)
            if open_i is None or open_i == 0:
                break
            brackets.append((open_i, end - 1))
            end = open_i
        brackets.reverse()
        base = toks[:end]
        sections = tuple(self.section(toks, o, c) for o, c in brackets)
        return ListItem(text=self._text(toks), base=self._text(base), root=self._root(base),
                        sections=sections, span=self.span_of(self._begin(toks[0]), toks[-1].end))

    @staticmethod
    def _matching_open(toks: Sequence[Tok], close: int) -> int | None:
        depth = 0
        for j in range(close, -1, -1):
            tok = toks[j]
            if tok.kind != PUNCT:
                continue
            if tok.text in _CLOSE:
                depth += 1
            elif tok.text in _OPEN:
                depth -= 1
                if depth == 0:
                    return j if _OPEN[tok.text] == toks[close].text else None
        return None

    def _root(self, base: Sequence[Tok]) -> str:
        i = 0
        if len(base) > 2 and base[0].text == "(" and base[1].text == "[":
            close = matching_close(base, 0)  # array shaping: ([n][m])p
            if close is not None:
                i = close + 1
        for j in range(i, len(base)):
            tok = base[j]
            if tok.kind == IDENT or (tok.kind == KEYWORD and tok.text == "this"):
                k = j
                while k + 2 < len(base) and base[k + 1].text == "::" and base[k + 2].kind == IDENT:
                    k += 2
                lead = j - 1 if j > i and base[j - 1].text == "::" else j
                return "".join(t.text for t in base[lead : k + 1])
        return self._text(base)

    def section(self, toks: Sequence[Tok], open_i: int, close_i: int) -> ArraySection:
        inner = toks[open_i + 1 : close_i]
        span = self.span_of(toks[open_i].start, toks[close_i].end)
        colons = top_colons(inner)
        if not colons:
            if not inner:
                self.warn("empty subscript '[]' in list item", "omp-parse", span)
            return ArraySection(self.expr(inner), None, False, span)
        if len(colons) > 1:
            self.warn("array section stride is not supported; the stride is ignored",
                      "omp-section-stride", span)
        lower = self.expr(inner[: colons[0]])
        length = self.expr(inner[colons[0] + 1 : colons[1] if len(colons) > 1 else len(inner)])
        return ArraySection(lower, length, True, span)

    # -- clauses ---------------------------------------------------------------------------

    def clause(self, name: str, args: Sequence[Tok] | None, span: SourceSpan) -> OmpClause:
        """One clause from its name and the tokens between its parentheses (None: no parens)."""
        if args is None:
            return OmpClause(name, span)
        if name in LIST_CLAUSES:
            return self._list_clause(name, args, span)
        if name in LIST_THEN_COLON:
            return self._list_then_colon(name, args, span)
        if name in MODIFIER_CLAUSES:
            colons = top_colons(args)
            if colons:
                mods = self.modifiers(args[: colons[0]], one=name == "if")
                return OmpClause(name, span, mods, argument=self._argument(name, args[colons[0] + 1 :], span))
        return OmpClause(name, span, argument=self._argument(name, args, span))

    def _argument(self, name: str, toks: Sequence[Tok], span: SourceSpan) -> Expr | None:
        if not toks:
            self.warn(f"empty argument in '{name}' clause", "omp-parse", span)
        return self.expr(toks)

    def _list_clause(self, name: str, args: Sequence[Tok], span: SourceSpan) -> OmpClause:
        colons = top_colons(args)
        mods: tuple[str, ...] = ()
        rest = args
        if colons:
            mods = self.modifiers(args[: colons[0]])
            rest = args[colons[0] + 1 :]
        elif name in ("depend", "doacross") and len(args) == 1 and args[0].text == "source":
            return OmpClause(name, span, ("source",))
        if not rest:
            if name != "doacross":
                self.warn(f"empty list in '{name}' clause", "omp-parse", span)
            return OmpClause(name, span, mods)
        return OmpClause(name, span, mods, self.items(rest, name))

    def _list_then_colon(self, name: str, args: Sequence[Tok], span: SourceSpan) -> OmpClause:
        colons = top_colons(args)
        head = args[: colons[0]] if colons else args
        mods: list[str] = []
        argument = None
        # Old form: linear(ref(x, y): 1) -- the modifier wraps the list.
        if (len(head) >= 3 and head[0].text in LINEAR_MODIFIERS and head[1].text == "("
                and matching_close(head, 1) == len(head) - 1):
            mods.append(head[0].text)
            head = head[2:-1]
        if colons:
            for piece in split_top(args[colons[0] + 1 :]):
                if name == "linear" and piece and piece[0].text in LINEAR_MODIFIERS and (
                        len(piece) == 1 or piece[1].text == "("):
                    mods.append(self._text(piece))
                elif piece and argument is None:
                    argument = self.expr(piece)
                else:
                    self.warn(f"unexpected text after ':' in '{name}' clause", "omp-parse", span)
        if not head:
            self.warn(f"empty list in '{name}' clause", "omp-parse", span)
            return OmpClause(name, span, tuple(mods), argument=argument)
        return OmpClause(name, span, tuple(mods), self.items(head, name), argument)

    def parse(self, toks: Sequence[Tok], words: tuple[str, ...]) -> list[OmpClause]:
        """Every clause after the directive name (``toks`` start right after the name)."""
        clauses: list[OmpClause] = []
        i = 0
        if words in ARG_DIRECTIVES and toks and toks[0].text == "(":
            close = matching_close(toks, 0)
            if close is None:
                self.warn(f"unbalanced parentheses after '{' '.join(words)}'", "omp-parse",
                          self.span_of(toks[0].start, toks[-1].end))
                return clauses
            span = self.span_of(toks[0].start, toks[close].end)
            inner = toks[1:close]
            if words in ARG_LIST_DIRECTIVES:
                clauses.append(OmpClause(words[-1], span, (), self.items(inner, words[-1])))
            else:
                clauses.append(OmpClause(words[-1], span, argument=self._argument(words[-1], inner, span)))
            i = close + 1
        while i < len(toks):
            tok = toks[i]
            if tok.kind == PUNCT and tok.text == ",":
                i += 1
                continue
            if tok.kind not in (IDENT, KEYWORD):
                self.warn(f"unexpected '{tok.text}' in OpenMP directive", "omp-parse",
                          self.span_of(tok.start, tok.end))
                i += 1
                continue
            name = tok.text
            if name not in KNOWN_CLAUSES and not name.startswith("ompx_"):
                self.warn(f"unknown OpenMP clause '{name}'", "omp-unknown-clause",
                          self.span_of(tok.start, tok.end))
            if i + 1 < len(toks) and toks[i + 1].text == "(":
                close = matching_close(toks, i + 1)
                if close is None:
                    self.warn(f"unbalanced parentheses in '{name}' clause", "omp-parse",
                              self.span_of(tok.start, toks[-1].end))
                    break
                clauses.append(self.clause(name, toks[i + 2 : close], self.span_of(tok.start, toks[close].end)))
                i = close + 1
            else:
                clauses.append(self.clause(name, None, self.span_of(tok.start, tok.end)))
                i += 1
        return clauses


def map_clauses(clauses: Sequence[OmpClause], words: tuple[str, ...], warn: Warn) -> tuple[MapClause, ...]:
    """One MapClause per ``map`` clause, and per ``to``/``from`` of ``target update``.

    ``declare target to(...)`` is not a motion clause, so it is not listed here.
    """
    out = []
    motion = words == ("target", "update")
    for clause in clauses:
        if clause.name == "map":
            mods = list(clause.modifiers)
            map_type, implicit = "tofrom", True
            if mods and mods[-1] in MAP_TYPES:
                map_type, implicit = mods.pop(), False
            for mod in mods:
                if mod.split("(")[0].strip() not in MAP_MODIFIERS:
                    warn(f"unknown map modifier '{mod}'", "omp-parse", clause.span)
            out.append(MapClause("map", map_type, tuple(mods), clause.items, clause.span, implicit))
        elif motion and clause.name in ("to", "from"):
            out.append(MapClause(clause.name, clause.name, clause.modifiers, clause.items, clause.span))
    return tuple(out)
