"""Host loops and branches that launch kernels, as barriers of a transfer region (issue 19, item 2).

A top-level statement of a region that is a loop or a branch (``for``, ``while``, ``do``,
``if``, ...) and launches kernels, but makes no ``cudaMalloc``/``cudaMemcpy``/``cudaFree``
call, becomes *one* operation of the region: a GPU kernel that reads and writes the device
buffers its launches read and write. Copies and allocations before and after it are then
planned and fused as in straight-line code; none is moved into it or across it, because an
operation is a barrier for the plan (a value crosses it only on the side the program keeps
it on).

The operation has to hold for any number of iterations, zero included:

* a buffer is *read* when some launch reads it before a launch of the same iteration wrote it
  (the first iteration reads the value from before the loop), or when a launch writes it and
  it had a value before the loop (a partial write, or no iteration at all, keeps that value);
* a buffer is *written* when some launch writes it.

Device buffers the loop *rotates* (``t = a; a = b; b = t;``, double buffers) are allowed: the
pointer copies of the loop, run in order on symbolic values, must leave those buffers holding
a permutation of what they held, and the temporaries must not be used outside the loop.
After the loop each of them may hold any of their values, so every one of them is read (when
it had a value) and written. Their storage may still come from the pool (each variable keeps
a slot of its own; the permutation only exchanges which variable names which slot), but a
fused ``cudaMemcpy`` spans slots by offset, not by variable, so from the first such loop on
their copies are not fused with others (``HostRegion.unfused``); before it, each variable
still names its own slot.

Anything else in the loop that mentions a region buffer (host code on host buffers next to
launches, a device buffer used in an expression) is refused (``transfers-control-flow``): a
host statement between launches of one loop would need copies inside the loop.
"""

from __future__ import annotations

from s2s.analysis.transfers.region import DEVICE, Launch
from s2s.model import Stmt
from s2s.model.cuda import Launch as LaunchSite
from s2s.model.span import SourceSpan


def rotated_buffers(extractor, stmt: Stmt) -> tuple[set[str], list[SourceSpan]]:
    """The device buffers the pointer copies inside ``stmt`` rotate, and the spans of those
    copies; a refusal when the copies are anything but a rotation of region device buffers."""
    aliases = extractor.aliases()   # choices among buffers are no rotation (host_choices)
    copies = [c for c in extractor.index.pointer_copies.inside(stmt.span) if c.target not in aliases]
    if not copies:
        return set(), []
    space = extractor.space
    buffers = {n for c in copies for n in (c.target, c.source) if n is not None and space.get(n) == DEVICE}
    temps = {c.target for c in copies if c.target not in space}
    values: dict[str, object] = {b: b for b in buffers}
    for k, copy in enumerate(copies):
        if copy.source is None or copy.offset or copy.target in space and space[copy.target] != DEVICE \
                or copy.source in space and space[copy.source] != DEVICE:
            extractor.refuse_loop(f"'{copy.target}' is assigned in a loop that launches kernels", copy.span)
        values[copy.target] = values.get(copy.source, ("unknown", k))
    if {values[b] for b in buffers} != buffers:
        extractor.refuse_loop("the pointer copies of a loop that launches kernels do not rotate its "
                              "device buffers (two names would share one buffer)", copies[0].span)
    # a temporary may be declared before the loop without a value (``float *tmp;`` at the top
    # of the function) and serve other loops' rotations (each of which is checked on its own:
    # it must assign the temporary before reading it, or its copies rotate nothing)
    rotations = [c.span for c in extractor.index.pointer_copies.inside(extractor.function.span)
                 if not stmt.span.contains(c.span)]
    for use in extractor.index.var_uses.inside(extractor.function.span):
        if use.name in temps and not stmt.span.contains(use.span) and use.role not in ("declare", "null-init") \
                and not any(span.contains(use.span) for span in rotations):
            extractor.refuse_loop(f"'{use.name}' holds a device buffer after the loop", use.span)
    return buffers, [c.span for c in copies]


def loop_op(extractor, stmt: Stmt, launches: list[LaunchSite], number: int) -> Launch | None:
    """The barrier operation of a loop (or branch) that launches ``launches`` (see the module
    docstring); updates the extractor's ``has_value`` and ``unfused``."""
    rotated, copy_spans = rotated_buffers(extractor, stmt)
    allowed = [launch.span for launch in launches] + copy_spans + extractor.alias_spans(stmt.span)
    for use in extractor.index.var_uses.inside(stmt.span):
        if use.name in extractor.space and not any(s.contains(use.span) for s in allowed):
            extractor.refuse_loop(f"'{use.name}' is used next to the launches of a loop; only launches and "
                                  "pointer rotations are followed there", use.span)
    before = set(extractor.has_value)
    reads: dict[str, None] = {}
    writes: dict[str, None] = {}
    for launch in launches:
        for name, read, write in extractor.launch_accesses(launch, before | set(writes)):
            if read and name not in writes:
                reads[name] = None
            if write:
                writes[name] = None
    if rotated and (reads or writes):
        writes.update(dict.fromkeys(sorted(rotated)))
    reads.update(dict.fromkeys(n for n in writes if n in before))
    extractor.has_value.update(writes)
    for name in rotated:
        extractor.unfused.setdefault(name, number)
    if not reads and not writes:
        return None
    return Launch(f"loop at line {stmt.span.line}", tuple(reads), tuple(writes), stmt.span)
