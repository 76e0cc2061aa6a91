"""Runtime calls checked by an ``if`` of their own, split from :mod:`host_code` (issue 29).

``if (cudaMalloc((void **)&d, bytes) != cudaSuccess) { fprintf(stderr, ...); exit(1); }`` is
how real programs (and the allocation helpers :mod:`s2s.transform.alloc_helpers` inlines)
check a call without a macro. Such a statement is the call, like ``CHECK(cudaMalloc(...))``:
its *frame* is the statement's text with the call cut out (:data:`HOLE` where it was), and
the rewrite puts the pool's ``cudaMalloc``/``cudaFree`` or a merged ``cudaMemcpy`` in the
same frame, so the program's error branch still runs when that call fails.

Only a plain check is a frame: no ``else``, the condition nothing but the call compared
with ``cudaSuccess`` (or the call alone: non-zero is an error), and an error branch that
names no buffer of the region and makes no other CUDA memory call or launch (a branch that
frees another buffer would free a slot of a pool). Anything else stays a memory call under
control flow (``transfers-control-flow``).

The same holds for a statement ``F(call);`` where ``F`` is a function of the file that only
reports the error code it is given (:meth:`CheckedCalls.checking_function`): its name is the
frame, as a checking macro's is.

A mixin of ``host_code._Extractor``: reads its ``source``, ``model``, ``space``, ``arrays`` and
``_uses``.
"""

from __future__ import annotations

import re

from s2s.model import Stmt
from s2s.model.cuda import ApiCall

#: where the call goes in a frame's text
HOLE = "\x00"
#: the conditions (blanks removed, the call as HOLE) that test a call for failure
_FAILURE_TESTS = frozenset({HOLE, f"{HOLE}!=cudaSuccess", f"cudaSuccess!={HOLE}"})
#: what a checking function may call: it reports the error and stops
_REPORTING = frozenset({"cudaGetErrorString", "cudaGetErrorName", "printf", "fprintf", "puts", "fputs",
                        "exit", "abort", "fflush"})


def framed(frame: str, call: str) -> str:
    """``call`` in ``frame``: a checking statement's text, or a macro's name (``M(call);``)."""
    if HOLE in frame:
        return frame.replace(HOLE, call)
    return f"{frame}({call});"


def _bare_condition(text: str) -> str:
    text = re.sub(r"\s+", "", text)
    while True:   # parentheses around the call or the whole test decide nothing
        inner = text.replace(f"({HOLE})", HOLE)
        if inner.startswith("(") and inner.endswith(")") and inner.count("(") == 1:
            inner = inner[1:-1]
        if inner == text:
            return text
        text = inner


class CheckedCalls:
    """``if (call != cudaSuccess) {...}`` as the call (see the module docstring)."""

    def checked_call(self, stmt: Stmt, memory: list[ApiCall], launches: list) -> str | None:
        """The frame of ``stmt`` when it is a plain check of its one memory call, else None."""
        if stmt.kind != "if" or stmt.orelse is not None or stmt.cond is None or stmt.body is None \
                or stmt.span.macro is not None or launches or len(memory) != 1:
            return None
        call, cond = memory[0], stmt.cond.span
        if call.span.macro is not None or not cond.start <= call.span.start <= call.span.end <= cond.end:
            return None
        test = (self.source[cond.start:call.span.start].decode("utf-8", "surrogateescape") + HOLE +
                self.source[call.span.end:cond.end].decode("utf-8", "surrogateescape"))
        if _bare_condition(test) not in _FAILURE_TESTS:
            return None
        if any(use.name in self.space or use.name in self.arrays for use in self._uses(stmt.body.span)):
            return None
        start, end = stmt.span.start, self.statement_end(stmt)
        return (self.source[start:call.span.start] + HOLE.encode() +
                self.source[call.span.end:end]).decode("utf-8", "surrogateescape")

    def checking_function(self, stmt: Stmt, call: ApiCall) -> str | None:
        """``F`` when ``stmt`` is ``F(call);`` for a function ``F`` of the file that only looks
        at the error code (one parameter; it reports and exits, makes no other CUDA call):
        Rodinia's ``check_error(cudaMalloc(...))``. The pool's calls are then made in ``F`` the
        way a checking macro's are."""
        if stmt.kind != "expr" or call.span.macro is not None or len(stmt.calls) != 2:
            return None
        outer = next((c for c in stmt.calls if c is not call and c.name != call.name), None)
        if outer is None or len(outer.args) != 1 or outer.span.macro is not None or \
                (outer.args[0].span.start, outer.args[0].span.end) != (call.span.start, call.span.end) or \
                (outer.span.start, outer.span.end) != (stmt.span.start, stmt.span.end):
            return None
        functions = [f for f in self.model.functions if f.name == outer.name and f.body is not None]
        if len(functions) != 1 or len(functions[0].params) != 1 or \
                self.model.in_function("launches", outer.name):
            return None
        called = {c.name for c in functions[0].calls}
        return outer.name if called <= _REPORTING else None

    def statement_end(self, stmt: Stmt) -> int:
        """After the statement's last byte (a body without braces ends at its ``;``)."""
        end = stmt.span.end
        if self.source[end - 1:end] in (b"}", b";"):
            return end
        at = end
        while at < len(self.source) and self.source[at:at + 1] in (b" ", b"\t"):
            at += 1
        return at + 1 if self.source[at:at + 1] == b";" else end
