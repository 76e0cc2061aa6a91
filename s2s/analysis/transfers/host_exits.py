"""Forward ``goto`` to a cleanup label: the C error-handling exit of a region.

``if (bad) goto end; ... end: free(h); cudaFree(d); return 0;`` leaves the straight-line
order of the region: the statements between the ``goto`` and the label are skipped. Such a
function is planned when every path stays correct:

* each label a ``goto`` names is a top-level statement after the one holding the ``goto``
  (a backward jump, or one into a loop or branch, is refused: ``transfers-control-flow``);
* from the first such label on, the statements only free buffers or touch none (printing,
  ``cudaDeviceReset``, ``return``): on the jump's path nothing reads a buffer again;
* the statement holding the ``goto`` is host code the plan leaves in place, or a
  ``cudaMalloc``/``cudaMemcpy`` checked by an ``if`` whose error branch is the jump
  (``if (cudaMalloc(&d, n) != cudaSuccess) goto fail;``, a frame of ``host_frames``): the
  pool's allocation takes the first allocation's frame (its jump: nothing allocated), the
  other allocations become slots that cannot fail (allocations after such jumps may join the
  pool), and every planned copy takes a copy's frame and jump. The copies' jumps must all
  reach one label, and no planned copy may jump past a declaration (:func:`check_plan`);
* a buffer the caller sees (a parameter, a global) is copied into by the plan as often
  before each jump as by the program (:func:`check_seen_values`): else the caller could find
  another value in it on the jump's path; a loop of copies next to such a buffer is refused;
* buffers allocated at or after a ``goto`` stay out of the pools, so the pools (and the
  declarations the rewrite inserts for them) come before every jump: C++ forbids a jump past
  an initialised declaration, and the pool is freed once on each path;
* the pools are freed after the label, or before the ``goto``, and no planned copy is placed
  after the label (:func:`check_plan`).

On the jump's path the rewritten function then runs the same statements as on the
fall-through path up to the ``goto``, skips copies that only the skipped statements needed,
and frees the pools once.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.transfers.host_frames import HOLE
from s2s.diagnostics import UnsupportedConstruct
from s2s.model import Stmt

#: roles of the memory calls whose error-check frame may hold the ``goto`` (``framed_exit``)
FRAMED_ROLES = frozenset({"device-alloc", "copy"})
#: roles of the statements a cleanup tail may hold (``host`` only when it touches no buffer)
TAIL_ROLES = {"host-free", "device-free", "host"}


@dataclass(frozen=True)
class GotoExit:
    """A ``goto`` in top-level statement ``at`` jumping forward to the label at ``label``."""

    goto: Stmt
    at: int
    label: int


def _refused(function: str, message: str, stmt: Stmt) -> UnsupportedConstruct:
    return UnsupportedConstruct(f"{message}; the transfers of '{function}' are left as written",
                                stmt.span, "transfers-control-flow")


def goto_exits(function: str, top: tuple[Stmt, ...]) -> tuple[GotoExit, ...]:
    """The ``goto`` statements of a function body (top-level statements ``top``), each a
    forward jump to a top-level label; anything else is refused."""
    labels = {stmt.label: index for index, stmt in enumerate(top) if stmt.kind == "label"}
    exits = []
    for index, stmt in enumerate(top):
        for inner in stmt.walk():
            if inner.kind != "goto":
                continue
            target = labels.get(inner.label)
            if target is None:
                raise _refused(function, f"'goto {inner.label}' jumps to a label inside a loop or branch "
                               "(or one s2s cannot see)", inner)
            if target <= index:
                raise _refused(function, f"'goto {inner.label}' jumps backward (label at line "
                               f"{top[target].span.line}): the region is not straight-line", inner)
            exits.append(GotoExit(inner, index, target))
    return tuple(exits)


def unwrapped(top: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """``top`` with each label statement replaced by the statement it labels (its edits then
    keep the label: ``end: free(h);`` -> ``end: free(pool);``)."""
    return tuple(stmt.children[0] if stmt.kind == "label" and stmt.children else stmt for stmt in top)


def check_region(function: str, exits: tuple[GotoExit, ...], statements, own: set[str],
                 space: dict[str, str]) -> None:
    """Refuse a region whose jumps the plan could not keep correct (see the module)."""
    if not exits:
        return
    tail = min(e.label for e in exits)
    for entry in statements[tail:]:
        if entry.role not in TAIL_ROLES or entry.role == "host" and entry.op is not None:
            raise _refused(function, f"the statements after label at line {statements[tail].stmt.span.line} "
                           "(where a 'goto' jumps) do more than free buffers, so the copies skipped "
                           "on the jump's path could be needed there", entry.stmt)
    labels = {e.goto.label for e in exits if statements[e.at].role == "copy" and framed_exit(statements[e.at])}
    if len(labels) > 1:
        raise _refused(function, f"copies are checked with jumps to different labels ({', '.join(sorted(labels))}): "
                       "a merged copy takes one check, so a failure could reach another cleanup",
                       next(e.goto for e in exits if statements[e.at].role == "copy"))
    for exit in exits:
        held = statements[exit.at]
        if held.role != "host" and not framed_exit(held):
            raise _refused(function, f"'goto {exit.goto.label}' sits in a statement with a CUDA memory call "
                           "or launch, which the plan moves or merges", exit.goto)
    outside = sorted(name for name in space if name not in own)
    looped = [s for s in statements if s.role in ("copy-loop", "element-loop")]
    if outside and looped:
        raise _refused(function, f"'{outside[0]}' is seen by the caller, and 'goto {exits[0].goto.label}' "
                       "leaves early: its value on that path is not proven when the plan moves the copies "
                       f"of the loop at line {looped[0].stmt.span.line}", exits[0].goto)


def seen_by_caller(exits: tuple[GotoExit, ...], space: dict[str, str], own: set[str]) -> frozenset[str]:
    """The region buffers a caller sees (parameters, globals) of a function with jumps."""
    return frozenset(name for name in space if name not in own) if exits else frozenset()


def check_seen_values(function: str, exits: tuple[GotoExit, ...], statements, ops, seen: frozenset[str],
                      planned: list[tuple[str, int]]) -> None:
    """A buffer the caller sees holds, on each jump's path, what the program left in it: the
    plan writes it by copies (``planned``: (buffer, boundary) per copy the plan places) as often
    before each ``goto`` as the program's own copies did (those the plan replaces). A download
    moved past a jump would leave the caller's buffer stale on that path."""
    own_copies = [(ops[s.op].dst, index) for index, s in enumerate(statements)
                  if s.role == "copy" and s.op is not None and getattr(ops[s.op], "dst", None) in seen]
    for exit in exits:
        for name in sorted(seen):
            before = sum(1 for n, at in own_copies if n == name and at <= exit.at)
            placed = sum(1 for n, boundary in planned if n == name and boundary <= exit.at)
            if before != placed:
                raise _refused(function, f"'{name}' is seen by the caller, and the plan copies into it "
                               f"{placed} time(s) before 'goto {exit.goto.label}' (line {exit.goto.span.line}) "
                               f"where the program did {before}: on the jump's path the caller would see "
                               "another value", exit.goto)


def framed_exit(entry) -> bool:
    """The statement is an allocation or a copy checked by an ``if`` whose error branch holds
    the ``goto`` (``if (cudaMalloc(&d, n) != cudaSuccess) goto fail;``, ``host_frames``)."""
    return entry.role in FRAMED_ROLES and entry.wrapper is not None and HOLE in entry.wrapper


def before_exits(exits: tuple[GotoExit, ...], at: int, statements=()) -> bool:
    """Whether an allocation in top-level statement ``at`` runs before every jump (a buffer
    allocated later stays out of the pools). The jump of an allocation's own error check
    (``if (cudaMalloc(&d, n) != cudaSuccess) goto fail;``) does not count: the pool is made
    at the first pooled allocation, in its frame, and the other allocations become slot
    assignments that cannot fail, so the only such jump left is the pool's own, on whose
    path nothing is allocated (nor was it in the program, up to the failing call)."""
    return all(at < exit.at or statements and statements[exit.at].role == "device-alloc"
               and framed_exit(statements[exit.at]) for exit in exits)


def check_frees(function: str, exits: tuple[GotoExit, ...], statements, free_at: dict[str, int],
                pooled: tuple[frozenset[str], ...]) -> None:
    """Each pool is freed by one statement (its last pooled free): it must run on the jump's
    path too, so it sits after the label or before the jump."""
    for names in pooled:
        last = max((free_at[n] for n in names), default=None)
        for exit in exits:
            if last is not None and exit.at <= last < exit.label:
                raise _refused(function, f"the pool would be freed at line {statements[last].stmt.span.line}, "
                               f"which 'goto {exit.goto.label}' skips", exit.goto)


def check_plan(function: str, exits: tuple[GotoExit, ...], boundaries, statements) -> None:
    """No planned copy after a label a ``goto`` reaches: on the jump's path it would move
    values the skipped statements did not make. Where a copy's error check holds the
    ``goto`` (the frame every planned copy takes, ``host_frames``), no planned copy before the
    first jump of the program may have a declaration between it and that jump: the new jump
    would skip it (C++ forbids jumping past an initialisation; the program's own jumps skip
    none)."""
    framed = [e for e in exits if statements[e.at].role == "copy" and framed_exit(statements[e.at])]
    if framed:
        first = min(e.at for e in exits)
        for boundary in boundaries:
            skipped = [s for s in statements[boundary:first] if s.stmt.kind == "decl"]
            if skipped:
                raise _refused(function, f"the plan places a copy checked with 'goto {framed[0].goto.label}' "
                               f"before the declaration at line {skipped[0].stmt.span.line}, which its jump "
                               "would skip", skipped[0].stmt)
    for exit in exits:
        late = [b for b in boundaries if b > exit.label]
        if late:
            at = statements[min(late[0], len(statements) - 1)].stmt
            raise _refused(function, f"the plan places a copy after label '{exit.goto.label}' (line "
                           f"{statements[exit.label].stmt.span.line}), where 'goto' paths arrive", at)
