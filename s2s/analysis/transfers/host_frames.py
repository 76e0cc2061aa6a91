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

A mixin of ``host_code._Extractor``: reads its ``source``, ``space``, ``arrays`` and
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

    def statement_end(self, stmt: Stmt) -> int:
        """After the statement's last byte (a body without braces ends at its ``;``)."""
        end = stmt.span.end
        if self.source[end - 1:end] in (b"}", b";"):
            return end
        at = end
        while at < len(self.source) and self.source[at:at + 1] in (b" ", b"\t"):
            at += 1
        return at + 1 if self.source[at:at + 1] == b";" else end
