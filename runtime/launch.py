"""Partitioned kernel launches (paper section 8.3, with shared read copies).

One launch on P devices:

1. split the grid into P boxes (runtime.partition);
2. for every device and every pointer argument, ask the access model for the byte ranges the box reads
   (offsets from the pointer argument, so ``d + k`` arguments work) and plan the copies that bring the
   device's instance up to date -- planned for all devices against the trackers as they were before the
   launch, coalesced per (buffer, source, destination);
3. run each box on its device;
4. record each box's write ranges as now held by that device alone.

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

import time
from dataclasses import dataclass, field

from runtime.buffers import DevicePointer, device_bit
from runtime.coherence import TransferStats, execute, plan_fetches
from runtime.errors import LaunchError
from runtime.partition import Box, Launch, dim3, split_grid


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


@dataclass
class Plan:
    boxes: list[tuple[int, Box]]
    reads: list[tuple[int, object, int, int]]      # (device, buffer, lo, hi) in bytes
    writes: list[tuple[int, object, int, int]]
    partitioned: bool
    reason: str | None


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


def _box_ranges(boxes, pointers, names, elem_sizes, access, config):
    """(device, buffer, lo, hi) byte ranges each box reads and writes."""
    reads, writes = [], []
    for device, box in boxes:
        for i, ptr in pointers.items():
            name = names[i]
            if name not in access.models:
                reads.append((device, ptr.buffer, 0, ptr.buffer.nbytes))
                continue
            es = elem_sizes[name]
            if access.reads(name):
                reads += [(device, ptr.buffer, a, b)
                          for a, b in _byte_ranges(access.read_ranges(name, box, config), ptr, es)]
            if access.writes(name):
                writes += [(device, ptr.buffer, a, b)
                           for a, b in _byte_ranges(access.write_ranges(name, box, config), ptr, es)]
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
    independent of who holds what; the copies are planned anew at every launch."""
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


def run(runtime, kernel, grid, block, args, shared: int = 0, access=None, mode: str = "auto") -> LaunchStats:
    """Launch ``kernel`` over all devices of ``runtime``; returns the launch's statistics."""
    start = time.perf_counter()
    grid, block = dim3(grid), dim3(block)
    if len(args) != len(kernel.params):
        raise LaunchError(f"{kernel.name}: {len(args)} arguments for {len(kernel.params)} parameters")
    pointers = resolve_pointers(runtime, kernel, args)
    devices = runtime.devices
    plan = cached_plan(kernel, grid, block, args, pointers, access, len(devices), mode)
    copies = plan_fetches(plan.reads, len(devices))
    bookkeeping = time.perf_counter() - start
    transfers = execute(copies, devices)
    kernel_start = time.perf_counter()
    for device, box in plan.boxes:
        raw = [(ptr.buffer.instance(device) + ptr.offset) if (ptr := pointers.get(i)) else
               (0 if p.kind == "pointer" else a) for i, (a, p) in enumerate(zip(args, kernel.params, strict=True))]
        devices[device].launch(kernel.on(device), grid, block, raw, shared, (box.lo, box.hi))
    kernel_s = time.perf_counter() - kernel_start
    update_start = time.perf_counter()
    for device, buf, lo, hi in plan.writes:
        buf.tracker.assign(lo, hi, device_bit(device))
    bookkeeping += time.perf_counter() - update_start
    return LaunchStats(kernel.name, plan.partitioned, plan.reason, plan.boxes, transfers, bookkeeping, kernel_s,
                       len(plan.reads), len(plan.writes))
