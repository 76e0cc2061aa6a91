"""Partitioned kernel launches (paper section 8.3, with shared read copies).

One launch on P devices:

1. split the grid into P boxes (runtime.partition);
2. for every device and every pointer argument, ask the access model for the byte ranges the box reads
   (offsets from the pointer argument, so ``d + k`` arguments work) and plan the copies that bring the
   device's instance up to date -- planned for all devices against the trackers as they were before the
   launch, coalesced per (buffer, source, destination);
3. record the copies' new shared holders, then each box's write ranges as held by that device alone
   (before the boxes run: nothing reads the trackers until the launch returns);
4. run each box on its device.

Steady state: the plan of steps 1-2 (boxes, byte ranges) is cached per launch shape (sizes, offsets
and aliasing of the buffers, not their addresses: ``cached_plan``) and per launch arguments
(``_site``), and the copies and the trackers' states after step 3 are cached per plan and per shape
and tracker states before it (``_remember``, ``_shape_transition``): a launch repeated from states
seen before, over the same buffers or others of the same shape, replays them without a tracker
query, copy planning or tracker edit (docs/runtime.md, "Bookkeeping").

Reads are brought up to date for *all* devices before any box runs, so a box never sees another box's
writes (which would be a race in the CUDA program anyway).  A kernel without a usable access model runs
whole on device 0 with whole-buffer coherence: every pointer argument's buffer is brought up to date
there, and every buffer it may write (pointer not to const) is afterwards held by device 0 alone.
"Usable" is decided per launch: a model that is partitionable, covers every written pointer, knows the
element sizes, has a value for every map parameter, and whose write maps are injective across blocks for
*this* launch's values (``KernelAccess.launch_conflict``: the tool decided on sample launches).  Read
ranges of unknown offsets reach ``runtime.access.UNBOUNDED`` (2^62) and may start below 0; they are
clipped to the buffer.
"""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field

from runtime.buffers import DevicePointer, device_bit, is_virtual
from runtime.coherence import TransferStats, execute, plan_fetches
from runtime.errors import LaunchError
from runtime.partition import Box, Launch, dim3, split_grid
from runtime.tracker import SegmentTracker


@dataclass
class LaunchStats:
    """Per-launch statistics for benchmarks and tests."""
    kernel: str
    partitioned: bool
    reason: str | None
    boxes: list[tuple[int, Box]]
    transfers: TransferStats
    bookkeeping_s: float = 0.0       # access enumeration, tracker queries and updates, copy planning
    kernel_s: float = 0.0
    read_ranges: int = 0
    write_ranges: int = 0
    extra: dict = field(default_factory=dict)
    replayed: bool = False           # copies and tracker states replayed from an earlier launch


@dataclass(slots=True)
class Plan:
    boxes: list[tuple[int, Box]]
    reads: list[tuple[int, object, int, int]]      # (device, buffer, lo, hi) in bytes
    writes: list[tuple[int, object, int, int]]
    partitioned: bool
    reason: str | None
    trackers: tuple = ()            # the tracker of every buffer the launch reads or writes
    #: tracker states before -> (copies, tracker states after): see ``_remember``
    transitions: dict = field(default_factory=dict)
    shape: _Shape | None = None     # the launch shape this plan binds to its buffers (``cached_plan``)
    buffers: tuple = ()             # the buffer of each of the shape's slots

    def __post_init__(self):
        if not self.trackers:
            buffers = dict.fromkeys(buf for _, buf, _, _ in self.reads + self.writes)
            self.trackers = tuple(buf.tracker for buf in buffers)


def _model_info(access) -> tuple[list[str], dict[str, int | None]]:
    """Parameter names and element sizes of an access model (``KernelAccess`` or a test double with
    the same ``params`` / ``models[name].elem_size`` attributes)."""
    return list(access.params), {name: model.elem_size for name, model in access.models.items()}


def whole_plan(kernel, grid, pointers: dict[int, DevicePointer], reason: str | None) -> Plan:
    box = Box((0, 0, 0), grid)
    reads, writes = [], []
    for i, ptr in pointers.items():
        reads.append((0, ptr.buffer, 0, ptr.buffer.nbytes))
        if not kernel.params[i].const_target:
            writes.append((0, ptr.buffer, 0, ptr.buffer.nbytes))
    return Plan([(0, box)], reads, writes, False, reason)


def _byte_ranges(ranges, ptr: DevicePointer, elem_size: int):
    size = ptr.buffer.nbytes
    for lo, hi in ranges:
        a = min(max(ptr.offset + lo * elem_size, 0), size)
        b = min(max(ptr.offset + hi * elem_size, 0), size)
        if a < b:
            yield a, b


def partition_plan(kernel, grid, block, args, pointers, access, ndevices: int, mode: str) -> Plan:
    """Boxes and byte-range read/write sets per device, or a whole-grid plan with the reason why."""
    if access is None:
        return whole_plan(kernel, grid, pointers, "no access model" if ndevices > 1 else None)
    if not access.partitionable:
        return whole_plan(kernel, grid, pointers, access.reason or "access model says not partitionable")
    if ndevices == 1:
        return whole_plan(kernel, grid, pointers, None)
    names, elem_sizes = _model_info(access)
    if len(names) != len(kernel.params):
        raise LaunchError(f"{kernel.name}: access model has {len(names)} parameters, kernel has "
                          f"{len(kernel.params)}")
    covered = set(access.arrays)
    for i in pointers:
        if names[i] not in covered and not kernel.params[i].const_target:
            return whole_plan(kernel, grid, pointers, f"written pointer {names[i]!r} has no access model")
        if names[i] in covered and not elem_sizes[names[i]]:
            return whole_plan(kernel, grid, pointers, f"element size of {names[i]!r} unknown to the model")
    scalars = {n: int(a) for n, a, p in zip(names, args, kernel.params, strict=True)
               if p.kind in ("signed", "unsigned")}
    config = Launch(grid, block, scalars)
    try:
        conflict = access.launch_conflict(config)
        if conflict is not None:
            return whole_plan(kernel, grid, pointers, f"this launch: {conflict}")
        boxes = [(d, b) for d, b in enumerate(split_grid(grid, ndevices, mode)) if not b.empty]
        reads, writes = _box_ranges(boxes, pointers, names, elem_sizes, access, config)
    except KeyError as missing:             # a map parameter that is not an integer argument here
        return whole_plan(kernel, grid, pointers, f"access model: {missing.args[0]}")
    return Plan(boxes, reads, writes, True, None)


def _query_ranges(access, boxes, config):
    """A function (box number, array, mode) -> element ranges: from one ``launch_ranges`` call for all
    boxes where the model has it (``KernelAccess``: one native call), else query by query (test
    doubles)."""
    if not hasattr(access, "launch_ranges"):
        return lambda k, name, mode: getattr(access, f"{mode}_ranges")(name, boxes[k][1], config)
    index = {query: q for q, query in enumerate(access.queries)}
    found = access.launch_ranges([box for _, box in boxes], config)
    return lambda k, name, mode: found[k * len(index) + index[name, mode]]


def _box_ranges(boxes, pointers, names, elem_sizes, access, config):
    """(device, buffer, lo, hi) byte ranges each box reads and writes."""
    reads, writes = [], []
    ranges = _query_ranges(access, boxes, config)
    for k, (device, _box) in enumerate(boxes):
        for i, ptr in pointers.items():
            name = names[i]
            if name not in access.models:
                reads.append((device, ptr.buffer, 0, ptr.buffer.nbytes))
                continue
            es = elem_sizes[name]
            if access.reads(name):
                reads += [(device, ptr.buffer, a, b) for a, b in _byte_ranges(ranges(k, name, "read"), ptr, es)]
            if access.writes(name):
                writes += [(device, ptr.buffer, a, b) for a, b in _byte_ranges(ranges(k, name, "write"), ptr, es)]
    return reads, writes


def held_pointers(runtime, kernel, args) -> dict[int, list[tuple[int, DevicePointer]]]:
    """Device pointers inside by-value arguments (``KernelHandle.held``: a struct holding
    ``float *elements``), by parameter index, as (byte offset, resolved pointer); NULL and host
    addresses stay as they are (CUDA would pass them unchanged too)."""
    found: dict[int, list[tuple[int, DevicePointer]]] = {}
    for i, offsets in (getattr(kernel, "held", None) or {}).items():
        data = args[i]
        for offset in offsets:
            value = int.from_bytes(data[offset:offset + 8], "little")
            if is_virtual(value):
                found.setdefault(i, []).append((offset, runtime.space.resolve(value)))
    return found


def _holding_plan(kernel, grid, pointers, held, ndevices: int) -> Plan:
    """A launch whose by-value arguments hold device pointers runs whole on device 0, every
    buffer they name brought up to date there and afterwards held by device 0 alone (the
    access model sees parameters, not the pointers a struct holds)."""
    why = "by-value argument(s) hold device pointers the access model cannot see"
    plan = whole_plan(kernel, grid, pointers, why if ndevices > 1 else None)
    for fields in held.values():
        for _offset, ptr in fields:
            plan.reads.append((0, ptr.buffer, 0, ptr.buffer.nbytes))
            plan.writes.append((0, ptr.buffer, 0, ptr.buffer.nbytes))
    return Plan(plan.boxes, plan.reads, plan.writes, False, plan.reason)


def _translated(data: bytes, fields, device: int) -> bytes:
    """A by-value argument with each device pointer it holds replaced by ``device``'s address."""
    out = bytearray(data)
    for offset, ptr in fields:
        out[offset:offset + 8] = (ptr.buffer.instance(device) + ptr.offset).to_bytes(8, "little")
    return bytes(out)


def resolve_pointers(runtime, kernel, args) -> dict[int, DevicePointer]:
    """Pointer arguments (non-null) resolved to (buffer, offset), by parameter index."""
    return {i: runtime.space.resolve(a) for i, (a, p) in enumerate(zip(args, kernel.params, strict=True))
            if p.kind == "pointer" and a is not None and not (isinstance(a, int) and a == 0)}


@dataclass(slots=True)
class _Shape:
    """A plan with the launch's buffers as slots (numbered in the order the pointer arguments name
    them): what every launch of one shape shares, whichever buffers it names."""
    kernel: object
    access: object
    boxes: list
    reads: list                     # (device, slot, lo, hi)
    writes: list
    partitioned: bool
    reason: str | None
    #: tracker states before -> (copies as (type, slot, src, dst, lo, hi), tracker states after)
    transitions: dict = field(default_factory=dict)
    bound: dict = field(default_factory=dict)    # buffers (one per slot) -> Plan

    @classmethod
    def of(cls, kernel, access, plan: Plan, buffers: tuple) -> _Shape:
        slot = {buf: k for k, buf in enumerate(buffers)}
        return cls(kernel, access, plan.boxes, [(d, slot[b], lo, hi) for d, b, lo, hi in plan.reads],
                   [(d, slot[b], lo, hi) for d, b, lo, hi in plan.writes], plan.partitioned, plan.reason)

    def bind(self, buffers: tuple) -> Plan:
        """This shape's plan over ``buffers``, made once per tuple of buffers."""
        plan = self.bound.get(buffers)
        if plan is None:
            if len(self.bound) >= _BOUND_LIMIT:
                self.bound.clear()
            plan = self.bound[buffers] = Plan(
                self.boxes, [(d, buffers[k], lo, hi) for d, k, lo, hi in self.reads],
                [(d, buffers[k], lo, hi) for d, k, lo, hi in self.writes], self.partitioned, self.reason,
                shape=self, buffers=buffers)
        return plan


_SHAPE_LIMIT = 256              # per runtime
_BOUND_LIMIT = 64               # per shape


def _shape_key(kernel, access, grid, block, args, pointers, ndevices: int, mode: str) -> tuple[tuple, tuple]:
    """(key, buffers): what a plan depends on, namely kernel, model, grid, block, scalar arguments
    and, per pointer argument, the slot of its buffer (the pattern of which arguments share a
    buffer), the buffer's size and the offset into it; and the buffer of each slot. Addresses and
    the buffers themselves are not in the key: a pointer-swapped or reallocated launch of the same
    sizes has the same plan over other buffers."""
    slots: dict = {}
    values = tuple((slots.setdefault(ptr.buffer, len(slots)), ptr.buffer.nbytes, ptr.offset)
                   if (ptr := pointers.get(i)) else a for i, a in enumerate(args))
    return (id(kernel), id(access), grid, block, values, ndevices, mode), tuple(slots)


def cached_plan(shapes: dict, kernel, grid, block, args, pointers, access, ndevices: int, mode: str) -> Plan:
    """``partition_plan``, remembered per launch shape in ``shapes`` (the runtime's): iterative programs
    repeat a few launches (a stencil step and its pointer-swapped twin), and the plan (boxes, byte
    ranges per device) depends on the shape only (``_shape_key``), not on who holds what: the
    copies are planned against the trackers (``_remember``)."""
    if access is None:
        return partition_plan(kernel, grid, block, args, pointers, access, ndevices, mode)
    try:
        key, buffers = _shape_key(kernel, access, grid, block, args, pointers, ndevices, mode)
        shape = shapes.get(key)
    except TypeError:                      # an unhashable argument: planned every time
        return partition_plan(kernel, grid, block, args, pointers, access, ndevices, mode)
    if shape is None or shape.access is not access or shape.kernel is not kernel:
        plan = partition_plan(kernel, grid, block, args, pointers, access, ndevices, mode)
        if len(shapes) >= _SHAPE_LIMIT:
            shapes.clear()
        # the shape holds kernel and model, so that their ids in the key are not reused
        shape = shapes[key] = _Shape.of(kernel, access, plan, buffers)
        plan.shape, plan.buffers = shape, buffers
        shape.bound[buffers] = plan
        return plan
    return shape.bind(buffers)


class _Site:
    """What a launch with given arguments needs before it looks at the trackers (see ``_site``)."""

    __slots__ = ("kernel", "access", "grid", "block", "pointers", "plan", "trackers", "transitions", "held")

    def __init__(self, kernel, access, grid, block, pointers, plan, held=None):
        self.kernel, self.access, self.grid, self.block = kernel, access, grid, block
        self.pointers, self.plan, self.held = pointers, plan, held or {}
        self.trackers, self.transitions = plan.trackers, plan.transitions   # one object less to reach


#: (kernel handle (hashed by identity), model id, grid, block, mode, address-space generation, *args) -> _Site
_SITES: dict[tuple, _Site] = {}
_SITE_LIMIT = 1024
_TRANSITION_LIMIT = 64          # per plan
_snapshot = SegmentTracker.snapshot
_state = operator.attrgetter("state")
_clock = time.perf_counter


def _site(runtime, kernel, grid, block, args, access, mode: str, key) -> _Site:
    """Grid, block, resolved pointers and plan of a launch, remembered under ``key`` (the raw arguments,
    see ``run``) so that a repeated launch skips the dim3 conversion, the address resolution and the plan
    key. Valid while no buffer is freed (``AddressSpace.generation`` is in the key): addresses are never
    reused, so what an address names changes only by a free. ``key`` None: not remembered."""
    dims = dim3(grid), dim3(block)
    if len(args) != len(kernel.params):
        raise LaunchError(f"{kernel.name}: {len(args)} arguments for {len(kernel.params)} parameters")
    pointers = resolve_pointers(runtime, kernel, args)
    held = held_pointers(runtime, kernel, args)
    plan = _holding_plan(kernel, dims[0], pointers, held, len(runtime.devices)) if held else \
        cached_plan(runtime.launch_shapes, kernel, *dims, args, pointers, access, len(runtime.devices), mode)
    site = _Site(kernel, access, *dims, pointers, plan, held)
    if key is not None:
        if len(_SITES) >= _SITE_LIMIT:
            _SITES.clear()
        _SITES[key] = site
    return site


def _remember(states, plan: Plan, copies) -> None:
    """Steady state: the copies a launch needs and the trackers' states after it are functions of the
    plan and of the trackers' states before it.  An iterative program returns to the same states (a
    stencil's halo exchange: after two pointer-swapped steps every tracker is where it was), so each plan
    remembers, per tuple of states before, the copies and the states after, and a launch from remembered
    states replays them (``run``): no tracker query, no copy planning, no tracker edit.  States are
    interned objects (``SegmentTracker.snapshot``), so the lookup hashes a few pointers.  A tracker too
    large for a snapshot (None) keeps the launch from being remembered."""
    after = tuple(map(_snapshot, plan.trackers))
    if None not in states and None not in after:
        _store(plan.transitions, states, _transition(plan, states, copies, after))
        if plan.shape is not None:          # for every launch of the shape (``_shape_transition``)
            slot = {buf: k for k, buf in enumerate(plan.buffers)}
            _store(plan.shape.transitions, states,
                   ([(type(c), slot[c.buffer], c.src, c.dst, c.lo, c.hi) for c in copies], after))


def _transition(plan: Plan, states: tuple, copies: list, after: tuple) -> tuple:
    """(copies, states after, (tracker, state) for each tracker the launch changes): a replay sets
    only the trackers whose state it changes (not the read-only or own-box ones)."""
    changes = tuple((tracker, state) for tracker, before, state in zip(plan.trackers, states, after, strict=True)
                    if state is not before)
    return copies, after, changes


def _store(transitions: dict, states: tuple, entry: tuple) -> None:
    if len(transitions) >= _TRANSITION_LIMIT:
        transitions.clear()
    transitions[states] = entry


def _shape_transition(plan: Plan, states: tuple):
    """The copies and states after a launch from ``states``, learnt by another launch of the same
    shape (over other buffers: a pointer-swapped step from the states its twin left), bound to this
    plan's buffers and remembered in the plan; None where the shape has not seen these states. The
    trackers of a plan and of its shape's other plans are in the same order (the slots' order), so
    equal state tuples mean equal states slot by slot."""
    found = plan.shape.transitions.get(states)
    if found is None:
        return None
    buffers = plan.buffers
    entry = _transition(plan, states, [kind(buffers[k], src, dst, lo, hi) for kind, k, src, dst, lo, hi in found[0]],
                        found[1])
    _store(plan.transitions, states, entry)
    return entry


def run(runtime, kernel, grid, block, args, shared: int = 0, access=None, mode: str = "auto") -> LaunchStats:
    """Launch ``kernel`` over all devices of ``runtime``; returns the launch's statistics.

    The steady-state path (a launch repeated with the same arguments, from tracker states seen before)
    is kept short on purpose: one dictionary lookup for the site, one for the transition, a pointer
    store per tracker (``_site``, ``_remember``)."""
    start = _clock()
    try:
        key = (kernel, id(access), grid, block, mode, runtime.space.generation, *args)
        site = _SITES.get(key)
    except TypeError:                      # an unhashable argument (a list as grid): not remembered
        key = site = None
    if site is None or site.kernel is not kernel or site.access is not access:
        site = _site(runtime, kernel, grid, block, args, access, mode, key)
    trackers = site.trackers
    states = tuple(map(_state, trackers))
    if None in states:                     # not known since the trackers last changed (or too large)
        states = tuple(map(_snapshot, trackers))
    replay = site.transitions.get(states)
    if replay is None and site.plan.shape is not None:
        replay = _shape_transition(site.plan, states)
    if replay is not None:                 # the trackers' states after this launch, known from before
        for tracker, state in replay[2]:
            tracker.restore(state)
        bookkeeping = _clock() - start
        plan, devices = site.plan, runtime.devices
        transfers = execute(replay[0], devices, record=False)
    else:
        plan, devices = site.plan, runtime.devices
        copies = runtime.route_copies(plan_fetches(plan.reads, len(devices)))
        bookkeeping = time.perf_counter() - start
        transfers = execute(copies, devices)
        update_start = time.perf_counter()
        for device, buf, lo, hi in plan.writes:
            buf.tracker.assign(lo, hi, device_bit(device))
        _remember(states, plan, copies)
        bookkeeping += time.perf_counter() - update_start
    grid, block, pointers = site.grid, site.block, site.pointers
    kernel_start = time.perf_counter()
    for device, box in plan.boxes:
        raw = [(ptr.buffer.instance(device) + ptr.offset) if (ptr := pointers.get(i)) else
               (0 if p.kind == "pointer" else a) for i, (a, p) in enumerate(zip(args, kernel.params, strict=True))]
        for i, fields in site.held.items():
            raw[i] = _translated(raw[i], fields, device)
        devices[device].launch(kernel.on(device), grid, block, raw, shared, (box.lo, box.hi))
    kernel_s = time.perf_counter() - kernel_start
    return LaunchStats(kernel.name, plan.partitioned, plan.reason, plan.boxes, transfers, bookkeeping, kernel_s,
                       len(plan.reads), len(plan.writes), replayed=replay is not None)
