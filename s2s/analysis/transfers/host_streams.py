"""Work on streams other than the default one in a transfer region (issue 29).

The plan re-places the region's copies as synchronous ``cudaMemcpy`` calls on the legacy
default stream, moves allocations to a pool before the first operation and frees to after
the last. That is sound next to launches and copies on another stream ``s`` when:

* ``s`` is a *blocking* stream: every creation of the variable naming it in the function is
  ``cudaStreamCreate(&s)`` (or ``cudaStreamCreateWithFlags``/``WithPriority`` with the
  ``cudaStreamDefault`` flags), and nothing else gives it a value. An operation of the legacy
  default stream then waits for all earlier work of blocking streams and later work of them
  waits for it, so a default-stream copy placed anywhere between a value's producer and its
  consumer (the plan keeps that order) sees and gives the value as the program's copy did. A
  stream made with ``cudaStreamNonBlocking``, one the function does not create, or one
  chosen at run time (``s = streams[c % 2]``) gives no such order: refused
  (``transfers-stream``), naming the creation.
* two pieces of stream work that may run on different streams and share a buffer one of
  them writes are ordered by something the plan keeps in place, or by nothing the plan
  moves: a copy, allocation or free between them is a default-stream operation (or an
  implicit synchronisation, ``cudaFree``) that may have been what ordered them, so it needs a
  ``cudaDeviceSynchronize``, a ``cudaStreamSynchronize`` of the first one's stream or a
  default-stream launch between them as well; else refused with both lines and the
  statement the plan moves.

A copy on a blocking stream is then planned as the default-stream one is (``cudaMemcpyAsync``
becomes a synchronous copy, one of the schedules the program allowed: its host could not rely
on it running later without a synchronisation). A build with ``--default-stream per-thread``
changes the default stream's order and is not seen here (the flags do not reach the model).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from s2s.model.cuda import ApiCall
from s2s.model.cuda import Launch as LaunchSite
from s2s.model.span import SourceSpan

#: the stream arguments that name the default (legacy) stream (a null constant in the text)
NULL_STREAMS = frozenset({"0", "NULL", "nullptr", "cudaStreamLegacy"})
#: creations of a stream; the flags argument (index 1) must say it blocks (``cudaStreamDefault``)
_CREATIONS = {"cudaStreamCreate": None, "cudaStreamCreateWithFlags": 1, "cudaStreamCreateWithPriority": 1}
_BLOCKING_FLAGS = frozenset({"cudaStreamDefault", "0", "0x0", "0u", "0U", "0x00"})
#: statement roles whose operations the plan moves or replaces (copies, allocations, frees)
_MOVED_ROLES = frozenset({"copy", "device-alloc", "device-free", "copy-loop", "element-loop"})
_DEVICE_SYNCS = frozenset({"cudaDeviceSynchronize", "cudaThreadSynchronize"})


def stream_text(expr) -> str | None:
    """The stream argument's text when it names a stream other than the default one."""
    if expr is None:
        return None
    text = expr.text.strip()
    return None if text in NULL_STREAMS or not text else text


def _gives_value(use) -> bool:
    """The mention may give the stream variable (or an element of it) a value: assigned,
    initialised, its address handed on (``&s``, ``&s[k]``), or handed to a function of the
    program (an array of streams it may fill; a handle is a pointer too, which the model does
    not tell apart). The runtime's calls and a launch's configuration take handles by value."""
    if use.role in ("assign", "address", "init"):
        return True
    if use.role == "subscript":
        return use.element in ("assign", "address")
    return use.role == "argument" and use.pointer and not (use.call or "").startswith(("cuda", "__cuda"))


@dataclass(frozen=True)
class StreamWork:
    """A launch or a copy kept as written on stream ``stream`` (its text) in top-level
    statement ``statement`` (None until placed), with the region buffers it touches."""

    stream: str
    span: SourceSpan
    touched: frozenset[str]
    written: frozenset[str]
    #: the stream expression names one stream for the whole function (``lanes[0]``, not
    #: ``streams[s]``): two pieces of work with the same text then share their stream
    fixed: bool
    statement: int | None = None


class Streams:
    """Mixin of the region extractor (``host_code._Extractor``): blocking-stream facts and
    the order check of the region's stream work (see the module docstring)."""

    def stream_problem(self, text: str, span: SourceSpan, uses) -> str | None:
        """Why stream ``text`` (whose mentions are ``uses``) is not provably a blocking stream
        of this function; None when it is."""
        if span.macro is not None and not uses:
            return f"stream '{text}' is spelled in macro '{span.macro}'"
        if not uses:
            return f"stream '{text}' is no variable of the function"
        root = min(uses, key=lambda u: u.span.start)
        if not root.local:
            return f"stream '{text}' is not created in '{self.function.name}'"
        key = (root.name, root.decl)
        if key not in self.stream_verdicts:     # (once per variable: a file may launch often)
            self.stream_verdicts[key] = self._variable_problem(root)
        return self.stream_verdicts[key]

    def _variable_problem(self, root) -> str | None:
        """Why the stream variable of mention ``root`` is not provably a blocking stream."""
        creations = 0
        for use in self._uses(self.function.span):
            if use.name != root.name or use.decl != root.decl or not _gives_value(use):
                continue
            call = self._creation_at(use)
            if call is None:
                return (f"stream '{root.name}' is given a value at line {use.span.line} that is no "
                        "creation of a blocking stream")
            flags = _CREATIONS[call.name]
            if flags is not None and (len(call.args) <= flags or
                                      call.args[flags].text.strip() not in _BLOCKING_FLAGS):
                return (f"stream '{root.name}' is created at line {call.span.line} with flags "
                        f"'{call.args[flags].text.strip() if len(call.args) > flags else ''}': a "
                        "non-blocking stream is not ordered with the default stream's copies "
                        "the plan places")
            creations += 1
        if not creations:
            return f"stream '{root.name}' is not created in '{self.function.name}'"
        return None

    def _creation_at(self, use) -> ApiCall | None:
        """The stream creation whose first argument is ``use`` (``&s``, ``&s[k]``)."""
        if use.call not in _CREATIONS or use.position != 0:
            return None
        calls = [c for c in self.model.in_function("api_calls", self.function.name)
                 if c.name == use.call and c.span.start <= use.span.start and use.span.end <= c.span.end]
        return calls[0] if calls else None

    def fixed_stream(self, uses) -> bool:
        """The stream's mentions are its variable alone (``stream``, ``lanes[0]``)."""
        return len({(u.name, u.decl) for u in uses}) == 1

    def copy_stream(self, call: ApiCall) -> str | None:
        """The stream of a five-argument ``cudaMemcpyAsync`` when not the default one."""
        if call.name != "cudaMemcpyAsync" or len(call.args) != 5:
            return None
        return stream_text(call.args[4])

    def blocking_copy(self, call: ApiCall) -> bool:
        """``call`` is a ``cudaMemcpyAsync`` on a blocking stream of the function."""
        text = self.copy_stream(call)
        return text is not None and \
            self.stream_problem(text, call.span, self._arg_uses(call.span, call.name, 4)) is None

    def refuse_stream_copy(self, call: ApiCall) -> None:
        text = self.copy_stream(call)
        problem = self.stream_problem(text, call.span, self._arg_uses(call.span, call.name, 4))
        self._refuse(f"'{call.name}' on stream '{text}': {problem}, so moving or merging it "
                     "with the default stream's copies is not provably legal", call.span, "transfers-stream")

    def check_stream_launch(self, launch: LaunchSite) -> list | None:
        """Refuse a launch on a stream that is not provably blocking; the stream's mentions
        for one that is (None on the default stream)."""
        text = stream_text(launch.stream)
        if text is None:
            return None
        uses = self._uses(launch.stream.span)
        if self.bodies is None:
            self._refuse(f"a launch of '{launch.kernel}' on stream '{text}' in a loop whose body copies: "
                         "its order with other streams' work may rest on the copies the plan moves",
                         launch.span, "transfers-stream")
        problem = self.stream_problem(text, launch.stream.span, uses)
        if problem is not None:
            self._refuse(f"a launch of '{launch.kernel}' on stream '{text}': {problem}", launch.span,
                         "transfers-stream")
        return uses

    def note_stream_work(self, text: str, span: SourceSpan, uses, accesses) -> None:
        """Record stream work touching region buffers (``(name, read, write)`` triples)."""
        touched = frozenset(name for name, read, write in accesses if read or write)
        if touched:
            fixed = self.fixed_stream(uses)
            if fixed:   # one variable: '(stream)' and 'stream' are one stream
                text = "".join(c for c in text if c not in "() \t\n")
            self.stream_work.append(StreamWork(text, span, touched,
                                               frozenset(name for name, _, write in accesses if write),
                                               fixed))

    def check_stream_order(self, statements) -> None:
        """Refuse two pieces of stream work on possibly different streams sharing a written
        buffer with a statement the plan moves between them and nothing kept that orders
        them (module docstring)."""
        work = sorted((w for w in (self._placed(w, statements) for w in self.stream_work) if w is not None),
                      key=lambda w: (w.statement, w.span.start))
        if len(work) < 2:
            return
        moved = [i for i, entry in enumerate(statements) if entry.role in _MOVED_ROLES]
        barriers = self._barriers(statements)
        for k, first in enumerate(work):
            for second in work[k + 1:]:
                if second.statement == first.statement or not (first.written & second.touched or
                                                               second.written & first.touched):
                    continue
                if first.fixed and second.fixed and first.stream == second.stream:
                    continue
                at = bisect.bisect_right(moved, first.statement)
                if at == len(moved) or moved[at] >= second.statement:
                    continue     # nothing the plan moves lies between them
                if any(first.statement < b < second.statement
                       for b in barriers.get(first.stream if first.fixed else None, ()) + barriers.get("", ())):
                    continue
                shared = sorted((first.written & second.touched) | (second.written & first.touched))[0]
                self._refuse(f"the work on stream '{first.stream}' (line {first.span.line}) and on stream "
                             f"'{second.stream}' (line {second.span.line}) both use '{shared}', and what "
                             f"orders them may be the statement at line {statements[moved[at]].stmt.span.line}, "
                             "which the plan moves (no device or stream synchronisation between them)",
                             second.span, "transfers-stream")

    def _placed(self, work: StreamWork, statements) -> StreamWork | None:
        for index, entry in enumerate(statements):
            if entry.stmt.span.start <= work.span.start and work.span.end <= entry.stmt.span.end:
                return StreamWork(work.stream, work.span, work.touched, work.written, work.fixed, index)
        return None

    def _barriers(self, statements) -> dict[str, tuple[int, ...]]:
        """Statement indices that finish earlier stream work, kept in place: under key ""
        those that finish every stream's (a device synchronisation, a default-stream launch),
        under a stream's text those that finish its own (``cudaStreamSynchronize``)."""
        found: dict[str, list[int]] = {}
        calls = sorted(self.model.in_function("api_calls", self.function.name), key=lambda c: c.span.start)
        starts = [c.span.start for c in calls]
        for index, entry in enumerate(statements):
            if entry.role == "launch" and entry.launch is not None and stream_text(entry.launch.stream) is None:
                found.setdefault("", []).append(index)
            span = entry.stmt.span
            for call in calls[bisect.bisect_left(starts, span.start):bisect.bisect_right(starts, span.end)]:
                if call.span.end > span.end:
                    continue
                if call.name in _DEVICE_SYNCS:
                    found.setdefault("", []).append(index)
                elif call.name == "cudaStreamSynchronize" and len(call.args) == 1:
                    found.setdefault("".join(c for c in call.args[0].text if c not in "() \t\n"), []).append(index)
        return {key: tuple(indices) for key, indices in found.items()}
