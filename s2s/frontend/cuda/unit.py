"""One CUDA extraction context (:class:`Unit`): the cached main-file walk of a translation
unit with, for each macro call inside a function, the hidden cursors the macro produced, the
functions and their extents, and the text of calls and expressions (see
:mod:`s2s.frontend.cuda.constructs`)."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from s2s.frontend.core.context import FUNCTION_KINDS, TEMPLATE_KINDS, ExtractContext, Node
from s2s.frontend.cuda.names import ATTRIBUTE_MACROS
from s2s.frontend.cuda.text import (
    IDENT_AT_END,
    MacroCall,
    Macros,
    call_args_text,
    children_of,
    has_file,
    kind_of,
    offsets_of,
    spelling_of,
)
from s2s.model.span import Expr, SourceSpan

# --- one extraction context ---------------------------------------------------------------


@dataclass(frozen=True)
class UnitFunction:
    """A function-like cursor of the walk: its item index and the end of its subtree."""

    node: Node
    index: int
    end: int


class Unit:
    """What the three extractors share for one context: the walk with macro-hidden cursors
    added, each item's parent and enclosing function, and cached per-cursor facts."""

    def __init__(self, ctx: ExtractContext):
        self.ctx = ctx
        self.macros = ctx.memo("cuda.macros", Macros)
        self.items = self._with_hidden(ctx.nodes())
        self.depths = [node.depth for node in self.items]
        self.functions = self._find_functions()
        self._function_starts = [f.index for f in self.functions]
        self._attrs: dict = {}
        self._call_items = [i for i, n in enumerate(self.items) if n.kind == "CALL_EXPR"]

    # The walk -------------------------------------------------------------------------

    def _with_hidden(self, nodes: list[Node]) -> list[Node]:
        calls = [c for c in self.macros.outer if c.name not in ATTRIBUTE_MACROS]
        if not calls or not nodes:
            return nodes
        ends = self.ctx.subtree_links().end
        if self._walk_enters_macros(nodes, ends, calls):
            return nodes
        containers = {self._container(nodes, ends, call) for call in calls}
        containers.discard(None)
        out: list[Node] = []
        for i, node in enumerate(nodes):
            out.append(node)
            if i in containers:
                out.extend(self._hidden_children(node, self._extent(nodes, i)))
        return out

    def _walk_enters_macros(self, nodes, ends, calls: list[MacroCall]) -> bool:
        """Whether the context's walk already holds macro-produced cursors (a cursor lies
        within a macro call's text); a few probes suffice, as some macros produce none."""
        probes = 0
        for call in calls:
            index = self._container(nodes, ends, call)
            if index is None:
                continue
            start, end = self._extent(nodes, index)
            if call.start <= start and end <= call.end:
                return True
            probes += 1
            if probes == 5:
                return False
        return False

    def _container(self, nodes, ends, call: MacroCall) -> int | None:
        """Index of the deepest walked cursor whose extent holds the macro call."""
        i = bisect.bisect_right(self._top_starts(nodes, ends), call.start) - 1
        if i < 0:
            return None
        index = self._tops[i]
        start, end = self._extent(nodes, index)
        if not (start <= call.start and call.end <= end):
            return None
        while True:
            child, found = index + 1, None
            while child < ends[index]:
                c_start, c_end = self._extent(nodes, child)
                if c_start > call.start:
                    break
                if c_start <= call.start and call.end <= c_end and c_start < c_end:
                    found = child
                    break
                child = ends[child]
            if found is None:
                return index
            index = found

    def _top_starts(self, nodes, ends) -> list[int]:
        if not hasattr(self, "_tops"):
            self._extents: dict[int, tuple[int, int]] = {}
            self._tops, i = [], 0
            while i < len(nodes):
                self._tops.append(i)
                i = ends[i]
            self._tops.sort(key=lambda j: self._extent(nodes, j)[0])
            self._top_start_list = [self._extent(nodes, j)[0] for j in self._tops]
        return self._top_start_list

    def _extent(self, nodes, index: int) -> tuple[int, int]:
        found = self._extents.get(index)
        if found is None:
            found = self._extents[index] = offsets_of(nodes[index].cursor)
        return found

    def _hidden_children(self, parent: Node, bounds: tuple[int, int]) -> list[Node]:
        """Macro-produced descendants of ``parent``, in pre-order.

        A child the main-file walk skipped but that has a place inside ``parent``'s text can
        only come from a macro expanded there (header code has no place in this file; implicit
        nodes such as default arguments have no place at all).
        """
        out = []
        first = [c for c in children_of(parent.cursor)
                 if not self.ctx.in_main_file(c) and has_file(c)
                 and bounds[0] <= offsets_of(c)[0] <= bounds[1]]
        stack = [(c, parent.depth + 1) for c in reversed(first)]
        while stack:
            cursor, depth = stack.pop()
            kind = kind_of(cursor)
            template = parent.template
            if template is None and kind in TEMPLATE_KINDS:
                template = cursor.spelling
            out.append(Node(cursor, kind, depth, template, parent.function))
            children = children_of(cursor)
            if kind == "CALL_EXPR":  # default arguments: nodes with no place in any file
                children = [c for c in children if has_file(c)]
            stack.extend((c, depth + 1) for c in reversed(children))
        return out

    def _find_functions(self) -> list[UnitFunction]:
        """Each function-like item with its subtree end: the context's subtree ends where the
        items are the walk itself (no macro-hidden cursors added), else a scan of depths."""
        if self.items is self.ctx.nodes():
            ends = self.ctx.subtree_links().end
            return [UnitFunction(node, i, ends[i]) for i, node in enumerate(self.items)
                    if node.kind in FUNCTION_KINDS]
        depths, count, out = self.depths, len(self.items), []
        for i, node in enumerate(self.items):
            if node.kind in FUNCTION_KINDS:
                end, depth = i + 1, depths[i]
                while end < count and depths[end] > depth:
                    end += 1
                out.append(UnitFunction(node, i, end))
        return out

    def parent(self, index: int) -> int:
        """The walk parent of item ``index`` (-1 at the top): a short backward scan."""
        depths, depth = self.depths, self.depths[index]
        index -= 1
        while index >= 0 and depths[index] >= depth:
            index -= 1
        return index

    def owner(self, index: int) -> int:
        """Index in ``functions`` of the innermost function holding item ``index``, or -1."""
        i = bisect.bisect_left(self._function_starts, index) - 1
        while i >= 0 and not index < self.functions[i].end:
            i -= 1
        return i

    def body(self, function: UnitFunction) -> Iterator[int]:
        """Item indices of a function's subtree, without those of nested functions."""
        index = function.index + 1
        while index < function.end:
            if self.items[index].kind in FUNCTION_KINDS:
                index = self.functions[bisect.bisect_left(self._function_starts, index)].end
                continue
            yield index
            index += 1

    def occurrence(self, index: int, call: MacroCall) -> int:
        """How many calls of the same name precede the call at ``index`` in the expansion of
        ``call`` (the walk visits a macro's cursors as a block, in expansion order)."""
        name = self.call_name(index)
        count = 0
        i = bisect.bisect_left(self._call_items, index) - 1
        while i >= 0:
            other = self._call_items[i]
            start = offsets_of(self.items[other].cursor)[0]
            if not call.start <= start < call.end:
                break
            count += self.call_name(other) == name
            i -= 1
        return count

    # Per-cursor facts ---------------------------------------------------------------------

    def attrs(self, cursor) -> frozenset[str]:
        """Kinds of the attribute children of a declaration (CUDAGLOBAL_ATTR, ...)."""
        key = cursor.hash
        found = self._attrs.get(key)
        if found is None:
            found = self._attrs[key] = frozenset(
                c.kind.name for c in cursor.get_children() if c.kind.name.endswith("_ATTR"))
        return found

    def is_device_only(self, function: int) -> bool:
        """True for kernels and ``__device__`` functions that are not also ``__host__``."""
        if function < 0:
            return False
        attrs = self.attrs(self.functions[function].node.cursor)
        return "CUDAGLOBAL_ATTR" in attrs or (
            "CUDADEVICE_ATTR" in attrs and "CUDAHOST_ATTR" not in attrs)

    def function_name(self, index: int) -> str:
        return self.items[index].function or ""

    # Spans and expressions ----------------------------------------------------------------

    def span(self, cursor, template: str | None) -> SourceSpan:
        """The cursor's span; inside a macro, the whole macro call's (flagged) span.

        Built here rather than by ``ctx.span`` to look the macro call up by bisection.
        """
        return self.span_of(*offsets_of(cursor), template)

    def span_of(self, start: int, end: int, template: str | None) -> SourceSpan:
        """The span of ``[start, end)``, widened to the macro call holding it, if any."""
        macro = None
        call = self.macros.call_at(start)
        if call is not None and end <= call.end:
            start, end, macro = call.start, call.end, call.name
        index = self.ctx.index
        line, column = index.line_col(start)
        end_line, end_column = index.line_col(end)
        return SourceSpan(index.path, start, end, line, column, end_line, end_column,
                          index.indent(start), macro, template)

    def expr(self, cursor, template: str | None, whole_macro: bool = False) -> Expr:
        """Text and span of an expression; macro-argument text is kept exact.

        ``whole_macro``: the expression sits in plain code (an argument of a call outside any
        macro), so when it is exactly a macro call (``FULL_MASK``, ``MAX(a, b)``), that call
        is its text as written.
        """
        offsets = offsets_of(cursor)
        span = self.span_of(*offsets, template)
        if span.macro is None or (whole_macro and offsets == (span.start, span.end)):
            return Expr(self.ctx.index.text(span.start, span.end), span)
        return Expr(self.spelled_text(cursor, span), span)

    def spelled_text(self, cursor, macro_span: SourceSpan) -> str:
        """The cursor's text when it is written in an argument of the macro call, else ''."""
        start, end = offsets_of(cursor, file_level=True)
        # A nested macro written in the argument (CHECK(f(BYTES))) maps both ends of its
        # expansion to its name: widen to the whole nested call.
        for inner in self.macros.inner_at(start, macro_span.start) + self.macros.inner_at(
                end, macro_span.start):
            start, end = min(start, inner.start), max(end, inner.end)
        name_end = macro_span.start + len(macro_span.macro or "")
        if name_end < start < end < macro_span.end:
            return self.ctx.index.text(start, end)
        return ""

    def call_args(self, index: int, template: str | None) -> tuple[SourceSpan, tuple[Expr, ...]]:
        """Span and argument expressions of the call at walk item ``index``."""
        cursor = self.items[index].cursor
        span = self.span(cursor, template)
        plain = span.macro is None
        args = [self.expr(a, template, plain) for a in cursor.get_arguments() if has_file(a)]
        if not plain and any(not a.text for a in args):
            texts = self._macro_call_texts(index, span)
            if texts is not None and len(texts) == len(args):
                args = [a if a.text else Expr(t.strip(), a.span)
                        for a, t in zip(args, texts, strict=True)]
        return span, tuple(args)

    def _macro_call_texts(self, index: int, span: SourceSpan) -> list[str] | None:
        call = self.macros.call_at(span.start)
        expansion = self.macros.expansion(call) if call else None
        if expansion is None:
            return None
        name = self.call_name(index)
        return call_args_text(expansion, name, self.occurrence(index, call)) if name else None

    def call_name(self, index: int) -> str:
        """The callee's name; '' for a functional cast such as ``T(0)`` in a template.

        libclang leaves the spelling empty for unresolved calls in templates: the name is then
        that of the overload set, or read from the callee's text.
        """
        cursor = self.items[index].cursor
        name = spelling_of(cursor)
        if name:
            return name
        children = children_of(cursor)
        if not children or kind_of(children[0]) == "TYPE_REF":
            return ""
        callee = children[0]
        for part in (callee, *children_of(callee)):
            if kind_of(part) == "OVERLOADED_DECL_REF" and part.spelling:
                return part.spelling
        text = self.expr(callee, None).text.split("<", 1)[0]
        match = IDENT_AT_END.search(text)
        return match.group(1) if match else ""


def unit_of(ctx: ExtractContext) -> Unit:
    return ctx.memo("cuda.unit", Unit)
