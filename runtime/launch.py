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

Steady state: the plan of steps 1-2 (boxes, byte ranges) is cached per launch arguments
(``cached_plan``, ``_site``), and the copies and the trackers' states after step 3 are cached per
plan and tracker states before it (``_remember``): a launch repeated from states seen before replays
them without a tracker query, copy planning or tracker edit (docs/runtime.md, "Bookkeeping").

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

from runtime.buffers import DevicePointer, device_bit
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


def resolve_pointers(runtime, kernel, args) -> dict[int, DevicePointer]:
    """Pointer arguments (non-null) resolved to (buffer, offset), by parameter index."""
    return {i: runtime.space.resolve(a) for i, (a, p) in enumerate(zip(args, kernel.params, strict=True))
            if p.kind == "pointer" and a is not None and not (isinstance(a, int) and a == 0)}


_PLANS: dict[tuple, tuple[object, object, Plan]] = {}
_PLAN_LIMIT = 256


def cached_plan(kernel, grid, block, args, pointers, access, ndevices: int, mode: str) -> Plan:
    """``partition_plan``, remembered per launch: the same kernel, model, grid, block, scalar arguments
    and pointer arguments (buffer object and offset) on the same devices give the same plan, and
    iterative programs repeat a few launches (a stencil step and its pointer-swapped twin). The plan is
    independent of who holds what; the copies are planned against the trackers (``_remember``)."""
    if access is None:
        return partition_plan(kernel, grid, block, args, pointers, access, ndevices, mode)
    values = tuple((id(ptr.buffer), ptr.offset) if (ptr := pointers.get(i)) else a for i, a in enumerate(args))
    key = (id(kernel), id(access), grid, block, values, ndevices, mode)
    found = _PLANS.get(key)
    if found is not None and found[0] is access and found[1] is kernel:
        return found[2]
    plan = partition_plan(kernel, grid, block, args, pointers, access, ndevices, mode)
    if len(_PLANS) >= _PLAN_LIMIT:
        _PLANS.clear()
    _PLANS[key] = (access, kernel, plan)    # holding the objects keeps their ids from being reused
    return plan


class _Site:
    """What a launch with given arguments needs before it looks at the trackers (see ``_site``)."""

    __slots__ = ("kernel", "access", "grid", "block", "pointers", "plan", "trackers", "transitions")

    def __init__(self, kernel, access, grid, block, pointers, plan):
        self.kernel, self.access, self.grid, self.block = kernel, access, grid, block
        self.pointers, self.plan = pointers, plan
        self.trackers, self.transitions = plan.trackers, plan.transitions   # one object less to reach


#: (kernel handle (hashed by identity), model id, grid, block, mode, address-space generation, *args) -> _Site
_SITES: dict[tuple, _Site] = {}
_SITE_LIMIT = 1024
_TRANSITION_LIMIT = 64          # per plan
_snapshot = SegmentTracker.snapshot
_state = operator.attrgetter("state")


def _site(runtime, kernel, grid, block, args, access, mode: str, key) -> _Site:
    """Grid, block, resolved pointers and plan of a launch, remembered under ``key`` (the raw arguments,
    see ``run``) so that a repeated launch skips the dim3 conversion, the address resolution and the plan
    key. Valid while no buffer is freed (``AddressSpace.generation`` is in the key): addresses are never
    reused, so what an address names changes only by a free. ``key`` None: not remembered."""
    dims = dim3(grid), dim3(block)
    if len(args) != len(kernel.params):
        raise LaunchError(f"{kernel.name}: {len(args)} arguments for {len(kernel.params)} parameters")
    pointers = resolve_pointers(runtime, kernel, args)
    site = _Site(kernel, access, *dims, pointers,
                 cached_plan(kernel, *dims, args, pointers, access, len(runtime.devices), mode))
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
        if len(plan.transitions) >= _TRANSITION_LIMIT:
            plan.transitions.clear()
        plan.transitions[states] = (copies, after)


def run(runtime, kernel, grid, block, args, shared: int = 0, access=None, mode: str = "auto") -> LaunchStats:
    """Launch ``kernel`` over all devices of ``runtime``; returns the launch's statistics.

    The steady-state path (a launch repeated with the same arguments, from tracker states seen before)
    is kept short on purpose: one dictionary lookup for the site, one for the transition, a pointer
    store per tracker (``_site``, ``_remember``)."""
    start = time.perf_counter()
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
    if replay is not None:                 # the trackers' states after this launch, known from before
        for tracker, state in zip(trackers, replay[1], strict=True):
            if tracker.state is not state:  # read-only and own-box buffers keep their state
                tracker.restore(state)
        bookkeeping = time.perf_counter() - start
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
        devices[device].launch(kernel.on(device), grid, block, raw, shared, (box.lo, box.hi))
    kernel_s = time.perf_counter() - kernel_start
    return LaunchStats(kernel.name, plan.partitioned, plan.reason, plan.boxes, transfers, bookkeeping, kernel_s,
                       len(plan.reads), len(plan.writes), replayed=replay is not None)
