"""From a region's transfer plan to what the rewritten host code does: pools, slots, copies.

The optimizer plans per *value* (a single-assignment vector); the rewrite keeps the program's
buffers (device storage is shared by a buffer's values, see ``region.build_region_graph``'s
``shared_device``), so the memory layout is per *operand*: a host buffer and the device buffer
it pairs with get one slot at the same offset in the host pool and the device pool. A fused
message is a run of operands in consecutive slots that move in the same direction at the same
point; it is one ``cudaMemcpy`` of the byte range from the first slot to the end of the last.

A buffer has one place in its pool, but pairing is per value (a host buffer may pair with
two device buffers at different points): of the operands sharing a buffer, the one the plan
moves most often together with others gets the slot (:func:`_slotted`); the others move by copies of their
own (a fused copy needs the same layout on both sides), and their other buffer, when pooled
and in no slot, goes to its pool's tail.

Operands with several transferred values can make the optimizer's grouping impossible to lay
out as consecutive slots; the slot order is the better (fewer messages) of two candidates --
the operands in the order of the optimizer's layout, and the operands sorted by the groups they
belong to -- and the messages are counted honestly from the order chosen.

Every message is placed at a statement boundary inside its point's range (after the previous
kernel's statement, before the next one), after the allocation and before the free of every
buffer it touches; downloads as early as possible, uploads as late as possible.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.transfers.graph import Direction
from s2s.analysis.transfers.host_code import HostRegion
from s2s.analysis.transfers.optimize import optimize
from s2s.analysis.transfers.region import DEVICE, HOST, Copy, Operand
from s2s.analysis.transfers.timing import TransferPlan
from s2s.diagnostics import UnsupportedConstruct


@dataclass(frozen=True)
class Message:
    """One ``cudaMemcpy``: ``operands`` (slot order, consecutive when several) at ``point``,
    inserted before top-level statement ``boundary`` (``len(statements)``: after the last)."""

    direction: Direction
    point: int
    operands: tuple[int, ...]
    boundary: int
    #: a download after the uploads of its point: it overwrites a host buffer one of them reads
    late: bool = False


@dataclass(frozen=True)
class HostPlan:
    region: HostRegion
    plan: TransferPlan
    slots: tuple[int, ...]          # operands with a slot in both pools, in memory order
    host_tail: tuple[int, ...]      # operands whose host buffer is in the host pool, not in a slot
    device_tail: tuple[int, ...]    # operands whose device buffer is in the device pool, not in a slot
    messages: tuple[Message, ...]

    @property
    def operands(self) -> tuple[Operand, ...]:
        return self.region.graph.operands

    def pooled(self, operand: int, space: str) -> bool:
        op = self.operands[operand]
        name = op.host if space == HOST else op.device
        pool = self.region.host_pooled if space == HOST else self.region.device_pooled
        return name is not None and name in pool

    def _loop_calls(self, name: str) -> list:
        """The ``name`` calls of the region's element loops (``host_slices``), as written."""
        return [call for s in self.region.statements if s.role == "element-loop"
                for _child, call, _array, *_ in s.parts if call.name.startswith(name)]

    @property
    def copies_before(self) -> int:
        return sum(s.role in ("copy", "opaque-copy") for s in self.region.statements) + \
            len(self._loop_calls("cudaMemcpy"))

    @property
    def copies_after(self) -> int:
        """The planned messages plus the copies left as written (one side not followed)."""
        return len(self.messages) + sum(s.role == "opaque-copy" for s in self.region.statements) + \
            len(self._loop_calls("cudaMemcpy"))

    @property
    def device_allocs_before(self) -> int:
        """``cudaMalloc`` calls as written (one in an element loop counts once)."""
        return sum(s.role == "device-alloc" for s in self.region.statements) + len(self._loop_calls("cudaMalloc"))

    @property
    def device_allocs_after(self) -> int:
        if self.region.body_of is not None:  # a loop's body allocates nothing
            return self.device_allocs_before
        pooled = self.region.device_pooled
        calls = sum(s.role == "device-alloc" and s.buffer in pooled for s in self.region.statements) + \
            sum(s.role == "element-loop" and call.name == "cudaMalloc" and f"{array}[0]" in pooled
                for s in self.region.statements for _child, call, array, *_ in s.parts)
        return self.device_allocs_before - calls + bool(pooled)

    @property
    def host_allocs_before(self) -> int:
        return sum(b.space == HOST and b.local for b in self.region.buffers)  # none in a loop's body

    @property
    def host_allocs_after(self) -> int:
        if self.region.body_of is not None:
            return self.host_allocs_before
        return self.host_allocs_before - len(self.region.host_pooled) + bool(self.region.host_pooled)


#: Plans tried per region, best (fewest messages) first on ties: the optimizer's per-value
#: optimum is not always reachable with one slot per operand, another optimal timing may be.
CANDIDATES = (("optimal", "tight"), ("optimal", "greedy"), ("matching", "tight"), ("matching", "greedy"))


def plan_region(region: HostRegion, fixed: tuple[tuple[str | None, str | None], ...] | None = None) -> HostPlan:
    """The host plan with the fewest ``cudaMemcpy`` messages among :data:`CANDIDATES`
    (``fixed``: the slot order, see :func:`plan_host_code`)."""
    best = None
    for method, policy in CANDIDATES:
        candidate = plan_host_code(region, optimize(region.graph.graph, method, policy), fixed)
        if best is None or len(candidate.messages) < len(best.messages):
            best = candidate
    return best


def plan_host_code(region: HostRegion, plan: TransferPlan,
                   fixed: tuple[tuple[str | None, str | None], ...] | None = None) -> HostPlan:
    """``fixed``: the slots of the pools as (host, device) names in memory order, when another
    plan made them (a loop body's region uses its function's pools, ``host_body``)."""
    graph = region.graph
    operand_of = graph.operand_of
    if fixed is not None:
        return _plan_in_slots(region, plan, fixed)
    shared = _slotted(region, plan)
    moves: dict[int, tuple[Direction, int]] = {}   # vector -> (direction, point), pooled operands
    singles: list[tuple[Direction, int, int]] = []
    for transfer in plan.transfers:
        for vector in transfer.vectors:
            if operand_of[vector] in shared and _fusable(region, operand_of[vector], transfer.point):
                moves[vector] = (transfer.direction, transfer.point)
            else:
                singles.append((transfer.direction, transfer.point, operand_of[vector]))
    groups = _groups(moves, operand_of)
    moving = [o for o in dict.fromkeys(operand_of[v] for v in plan.layout) if o in shared
              and any(o in members for members in groups.values())]
    candidates = [moving, sorted(moving, key=lambda o: (_signature(o, groups), moving.index(o)))]
    slots = min(candidates, key=lambda order: len(_runs(order, groups)))
    moves = _merge_runs(graph.graph, slots, moves, operand_of)
    groups = _groups(moves, operand_of)
    slots += [o for o in shared if o not in slots]
    host_tail, device_tail = _tail(region, slots, HOST), _tail(region, slots, DEVICE)
    messages = _messages(region, slots, groups, singles)
    return HostPlan(region, plan, tuple(slots), host_tail, device_tail, messages)


def _messages(region: HostRegion, slots: list[int], groups, singles) -> tuple[Message, ...]:
    """The runs of ``slots`` and the single moves as messages, in program order at each point."""
    runs = _runs(slots, groups) + [(d, p, (o,)) for d, p, o in singles]
    pools = _pool_lifetimes(region)
    messages = [Message(d, p, ops, _boundary(region, d, p, ops, pools)) for d, p, ops in runs]
    messages = _downloads_first(region, messages)
    messages.sort(key=lambda m: (m.point, 2 if m.late else m.direction is Direction.UP,
                                 slots.index(m.operands[0]) if m.operands[0] in slots else len(slots)))
    return tuple(messages)


def _plan_in_slots(region: HostRegion, plan: TransferPlan, fixed) -> HostPlan:
    """The messages of ``plan`` over the slot order ``fixed``: a run joins operands that are
    neighbours there; a slot this region does not know is a gap (``-1 - k``: no run crosses it).
    Only the operand whose (host, device) pair is a slot's moves by it: with pairing per value
    the body may pair a slot's buffer with another one (``h`` with ``d_b`` where the slot is
    ``h`` and ``d_a``), and that operand moves by a copy of its own, between the variables."""
    graph = region.graph
    operand_of = graph.operand_of
    shared = [o for o in range(len(graph.operands)) if _both_pooled(region, graph.operands[o])]
    by_pair = {(graph.operands[o].host, graph.operands[o].device): o for o in shared}
    slots = [by_pair.get(pair, -1 - k) for k, pair in enumerate(fixed)]
    moves: dict[int, tuple[Direction, int]] = {}
    singles: list[tuple[Direction, int, int]] = []
    for transfer in plan.transfers:
        for vector in transfer.vectors:
            operand = operand_of[vector]
            if operand in slots and _fusable(region, operand, transfer.point):
                moves[vector] = (transfer.direction, transfer.point)
            else:
                singles.append((transfer.direction, transfer.point, operand))
    moves = _merge_runs(graph.graph, slots, moves, operand_of)
    return HostPlan(region, plan, tuple(slots), (), (), _messages(region, slots, _groups(moves, operand_of), singles))


def _slotted(region: HostRegion, plan: TransferPlan) -> list[int]:
    """The operands with both buffers pooled that get a slot: at most one per buffer, first
    those a loop's body copies (its copies, made every iteration, fuse only over slots:
    ``host_body``), then those with the most values the plan moves together with others (a
    slot is what lets them share a copy), then those with the most transferred values (ties:
    program order)."""
    operands = region.graph.operands
    host = {b.name for b in region.buffers if b.space == HOST}
    in_loops = {(op.src, op.dst) if op.src in host else (op.dst, op.src)
                for body in region.loops for op in body.ops if isinstance(op, Copy)}
    moved: dict[int, tuple[int, int]] = {}
    for transfer in plan.transfers:
        for vector in transfer.vectors:
            operand = region.graph.operand_of[vector]
            together, alone = moved.get(operand, (0, 0))
            moved[operand] = (together + (len(transfer.vectors) > 1), alone + 1)
    taken: set[str] = set()
    chosen = []
    for o in sorted((o for o in range(len(operands)) if _both_pooled(region, operands[o])),
                    key=lambda o: ((operands[o].host, operands[o].device) not in in_loops,
                                   tuple(-k for k in moved.get(o, (0, 0))), o)):
        names = {operands[o].host, operands[o].device}
        if not names & taken:
            taken |= names
            chosen.append(o)
    return sorted(chosen)


def _tail(region: HostRegion, slots: list[int], space: str) -> tuple[int, ...]:
    """One operand per pooled buffer of ``space`` that no slot holds (in operand order)."""
    operands = region.graph.operands
    seen = {_name(operands[o], space) for o in slots}
    tail = []
    for o, operand in enumerate(operands):
        name = _name(operand, space)
        if o not in slots and _pooled_name(region, operand, space) and name not in seen:
            seen.add(name)
            tail.append(o)
    return tuple(tail)


def _name(operand: Operand, space: str) -> str | None:
    return operand.host if space == HOST else operand.device


def _fusable(region: HostRegion, operand: int, point: int) -> bool:
    """Whether a move of ``operand`` at ``point`` may share a ``cudaMemcpy`` with others: not
    after a loop that rotates one of its buffers (its variable may name another slot then)."""
    op = region.graph.operands[operand]
    return all(point <= region.unfused[name] for name in (op.host, op.device) if name in region.unfused)


def _groups(moves: dict[int, tuple[Direction, int]], operand_of) -> dict[tuple[Direction, int], list[int]]:
    groups: dict[tuple[Direction, int], list[int]] = {}
    for vector, key in moves.items():
        groups.setdefault(key, []).append(operand_of[vector])
    return groups


def _merge_runs(graph, slots: list[int], moves: dict[int, tuple[Direction, int]], operand_of
                ) -> dict[int, tuple[Direction, int]]:
    """Re-time whole runs to join a neighbouring run of the same direction.

    With one slot per operand the optimizer's per-value timing may split what a different
    timing keeps together (a value downloaded early next to a buffer that moves every
    iteration). A run moves to a point of a run just before or after it in slot order when
    that point lies in every window of the run's values; each move removes at least one
    message, so the loop ends.
    """
    moves = dict(moves)
    position = {o: k for k, o in enumerate(slots)}
    while True:
        vector_at = {(operand_of[v], key): v for v, key in moves.items()}
        runs = _runs(slots, _groups(moves, operand_of))
        runs.sort(key=lambda run: (len(run[2]), run[1]))
        merged = False
        for direction, point, operands in runs:
            vectors = [vector_at[(o, (direction, point))] for o in operands]
            windows = [graph.window_of(v) for v in vectors]
            lo, hi = max(w.earliest for w in windows), min(w.latest for w in windows)
            for neighbour in (position[operands[0]] - 1, position[operands[-1]] + 1):
                if not 0 <= neighbour < len(slots):
                    continue
                targets = sorted(key[1] for (o, key) in vector_at if o == slots[neighbour]
                                 and key[0] is direction and key[1] != point and lo <= key[1] <= hi)
                if targets:
                    for v in vectors:
                        moves[v] = (direction, targets[0])
                    merged = True
                    break
            if merged:
                break
        if not merged:
            return moves


def _downloads_first(region: HostRegion, messages: list[Message]) -> list[Message]:
    """At one point the downloads come before the uploads (a value leaving a device buffer
    before the next one enters it), except a download into a host buffer that an upload of
    the point reads (pairing per value: ``h`` up to ``d_a`` where ``d_b`` comes down into
    ``h``): that one comes after the uploads. Refused when an upload must also follow such a
    download (it enters the device buffer the download leaves)."""
    def names(m: Message, space: str) -> set[str]:
        return {_name(region.graph.operands[o], space) for o in m.operands}

    ups_at: dict[int, list[Message]] = {}  # by point: the checks below stay linear
    for m in messages:
        if m.direction is Direction.UP:
            ups_at.setdefault(m.point, []).append(m)
    late = {id(m) for m in messages if m.direction is Direction.DOWN and any(
        names(u, HOST) & names(m, HOST) for u in ups_at.get(m.point, ()))}
    late_at: dict[int, list[Message]] = {}
    for m in messages:
        if id(m) in late:
            late_at.setdefault(m.point, []).append(m)
    last_download: dict[int, int] = {}
    last_upload: dict[int, int] = {}
    for m in messages:
        if m.direction is Direction.DOWN and id(m) not in late:
            last_download[m.point] = max(last_download.get(m.point, 0), m.boundary)
    result = []
    for m in messages:
        if m.direction is Direction.UP:
            if any(names(d, DEVICE) & names(m, DEVICE) for d in late_at.get(m.point, ())):
                raise UnsupportedConstruct("a host buffer goes up and takes a new value from the same device "
                                           "buffer at one point; no order of the copies keeps both",
                                           region.statements[min(m.boundary, len(region.statements) - 1)].stmt.span,
                                           "transfers-placement")
            m = Message(m.direction, m.point, m.operands, max(m.boundary, last_download.get(m.point, 0)))
            last_upload[m.point] = max(last_upload.get(m.point, 0), m.boundary)
        result.append(m)
    return [Message(m.direction, m.point, m.operands, max(m.boundary, last_upload.get(m.point, 0)), True)
            if id(m) in late else m for m in result]


def _pooled_name(region: HostRegion, operand: Operand, space: str) -> bool:
    name = operand.host if space == HOST else operand.device
    return name is not None and name in (region.host_pooled if space == HOST else region.device_pooled)


def _both_pooled(region: HostRegion, operand: Operand) -> bool:
    return _pooled_name(region, operand, HOST) and _pooled_name(region, operand, DEVICE)


def _signature(operand: int, groups) -> tuple:
    return tuple(sorted((p, d is Direction.UP) for (d, p), members in groups.items() if operand in members))


def _runs(order, groups) -> list[tuple[Direction, int, tuple[int, ...]]]:
    """Maximal runs of consecutive slots per (direction, point) group."""
    position = {o: k for k, o in enumerate(order)}
    result = []
    for (direction, point), members in groups.items():
        ordered = sorted(set(members), key=position.__getitem__)
        run: list[int] = []
        for operand in ordered:
            if run and position[operand] != position[run[-1]] + 1:
                result.append((direction, point, tuple(run)))
                run = []
            run.append(operand)
        if run:
            result.append((direction, point, tuple(run)))
    return result


def _boundary(region: HostRegion, direction: Direction, point: int, operands: tuple[int, ...],
              pools: dict) -> int:
    statements = region.statements
    kernels = len(region.graph.graph.kernels)
    lo = 0 if point == 0 else region.statement_of_kernel(point - 1) + 1
    if point < kernels:
        hi = region.statement_of_kernel(point)
    else:
        hi = next((i for i in range(lo, len(statements)) if statements[i].stmt.kind == "return"),
                  len(statements))
    for operand in operands:
        for name, space in ((region.graph.operands[operand].host, HOST),
                            (region.graph.operands[operand].device, DEVICE)):
            if name is None:
                continue
            alloc, free = _lifetime(region, name, space, pools)
            if alloc is not None:
                lo = max(lo, alloc + 1)
            if free is not None:
                hi = min(hi, free)
    if lo > hi:
        span = statements[min(lo, len(statements) - 1)].stmt.span
        raise UnsupportedConstruct("no place between the allocations and frees of the buffers for a "
                                   "planned copy", span, "transfers-placement")
    own = [i for i in range(lo, hi + 1) if i < len(statements) and _copies(region, statements[i], direction)
           & set(operands)]
    if own:  # where the program copied one of these operands itself: keeps the code's shape
        return own[0]
    return lo if direction is Direction.DOWN else hi


def _copies(region: HostRegion, entry, direction: Direction) -> set[int]:
    """The operands a ``cudaMemcpy`` statement of the program moves in ``direction``."""
    if entry.role != "copy" or entry.op is None:
        return set()
    op = region.ops[entry.op]
    operand = region.graph.operands
    host, device = (op.src, op.dst) if direction is Direction.UP else (op.dst, op.src)
    return {k for k, o in enumerate(operand) if (o.host, o.device) == (host, device)}


def _pool_lifetimes(region: HostRegion) -> dict[str, tuple[int, int]]:
    """Per space with a pool: from its first buffer's allocation to its last one's free
    (computed once per plan: the lifetime of every copied operand asks for it)."""
    out = {}
    if region.body_of is not None:  # a loop's body: the pools live around the loop
        return out
    for space, pool in ((HOST, region.host_pooled), (DEVICE, region.device_pooled)):
        if pool:
            out[space] = (min(region.alloc_at[n] for n in pool), max(region.free_at[n] for n in pool))
    return out


def _lifetime(region: HostRegion, name: str, space: str, pools: dict
              ) -> tuple[int | None, int | None]:
    if region.body_of is not None:  # a loop's body: the pools and buffers live around the loop
        return None, None
    if name in (region.host_pooled if space == HOST else region.device_pooled):
        return pools[space]
    return region.alloc_at.get(name), region.free_at.get(name)
