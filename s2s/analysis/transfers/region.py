"""Kernel-vector graphs from straight-line host regions (the input the CUDA rewriter builds).

A region is a sequence of operations on named buffers, each in one memory space: device
allocations and frees, ``cudaMemcpy`` host-to-device and device-to-host, kernel launches
with the device buffers they read and write, and host code with the host buffers it reads
and writes (host code that touches operands acts as a CPU kernel). A write is a full
overwrite; a kernel that updates part of a buffer must list it as read too.

:func:`build_region_graph` follows the *values* the original program moves: a launch reads
whatever its device buffer holds at that moment (a value the program copied there, or one
a kernel wrote), host code whatever its host buffer holds. Every value becomes one
single-assignment vector; the program's copies are dropped -- they only tell which value
each kernel sees -- and the optimizer decides anew when each value moves.

Pairing is per value, not per buffer: a value's *operand* is the host buffer and the device
buffer it lives in (the program's copies say which), so one host buffer may pair with
several device buffers at different points (``h`` uploaded to ``d_in``, the result of
``d_out`` downloaded into ``h``) and one device buffer with several host buffers. A value the
program copies to two buffers on the other side (``h`` uploaded to ``d_a`` and to ``d_b``)
becomes two vectors, one per operand, with the same producer and the same storage on their
home side. A value left on one side takes the buffer's first partner (as before). Refused
(``transfers-aliased-buffers``): a value that reaches a second buffer of its *home* side
through the other side (``d_a`` -> ``h`` -> ``d_b``), which is a move within one space.

Storage reuse on the host side bounds the windows (the device side is renamed: a pooled
allocation gives each version its own place): a value must be uploaded before host code
overwrites its buffer (``upload_by``), and where the program brings a new value into a host
buffer by a device-to-host copy, the old value is uploaded and the new one downloaded on
the same side of that copy as in the program (the copy's point bounds both windows).

With ``shared_device=True`` device storage is *not* renamed: each device buffer keeps one
place for all its values, as in a rewrite that pools the program's own buffers. A value then
enters its device buffer only after every kernel that used the previous value there
(``upload_from``), and a kernel result is downloaded before the buffer gets its next value
(``download_by``); where the previous value may still have to go down, the next one goes up
no earlier than the program's own copy. A value that would have to enter the same device
buffer twice is refused (``transfers-device-reuse``).

Values on entry: host and device buffers not allocated in the region hold them (a host and
a device entry value are different vectors: the program may hold stale data on one side).
Values on exit: every buffer not freed in the region is live out on its device, unless
``live_out`` lists the live buffers explicitly. A vector is fusable only when neither of
its operand's buffers is pinned (``Buffer.movable=False``: external or escaping storage the
rewriter cannot place in a pool).

Refused with an :class:`~s2s.diagnostics.UnsupportedConstruct` (the op's span, a stable id):
unknown buffers, operands in the wrong space, reads of uninitialized or freed buffers,
copies within one space or of part of a buffer, a value moved within one space through the
other, and a value the host needs again after overwriting it (one transfer per value cannot restore it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from s2s.analysis.transfers.graph import CPU, GPU, GraphError, Kernel, KernelVectorGraph, Vector
from s2s.diagnostics import UnsupportedConstruct
from s2s.model.span import SourceSpan

HOST, DEVICE = "host", "device"
#: the pools a transfers rewrite declares in the function it plans (``char *s2s_device_pool``)
HOST_POOL, DEVICE_POOL = "s2s_host_pool", "s2s_device_pool"
SPACE_DEVICE = {HOST: CPU, DEVICE: GPU}


@dataclass(frozen=True)
class Buffer:
    """A buffer of ``size`` bytes in ``space``. ``local`` buffers are allocated in the region
    (no value on entry); ``movable`` says the rewriter may place it in a pool (defaults to
    ``local``)."""

    name: str
    space: str
    size: int
    local: bool = True
    movable: bool | None = None

    @property
    def can_move(self) -> bool:
        return self.local if self.movable is None else self.movable


@dataclass(frozen=True)
class Copy:
    """``cudaMemcpy(dst, src, nbytes, kind)``; the kind follows from the buffers' spaces."""

    dst: str
    src: str
    nbytes: int | None = None
    span: SourceSpan | None = None


@dataclass(frozen=True)
class Launch:
    """A kernel launch on the GPU reading and writing device buffers."""

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    span: SourceSpan | None = None


@dataclass(frozen=True)
class HostCode:
    """Host statements between launches that read or write host buffers (a CPU kernel)."""

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    span: SourceSpan | None = None


@dataclass(frozen=True)
class Alloc:
    """A device buffer comes into existence here: nothing can be uploaded to it earlier."""

    buffer: str
    span: SourceSpan | None = None


@dataclass(frozen=True)
class Free:
    buffer: str
    span: SourceSpan | None = None


Op = Copy | Launch | HostCode | Alloc | Free


@dataclass(frozen=True)
class Operand:
    """A host buffer and the device buffer it pairs with (either may be None)."""

    name: str
    host: str | None
    device: str | None


@dataclass(frozen=True)
class RegionGraph:
    """The graph of a region and the way back to the program: ``operand_of[v]`` is the
    operand holding vector ``v``; ``op_of_kernel[k]`` the index in ``ops`` of kernel ``k``."""

    graph: KernelVectorGraph
    operands: tuple[Operand, ...]
    operand_of: tuple[int, ...]
    op_of_kernel: tuple[int, ...]


def build_region_graph(buffers: Sequence[Buffer], ops: Sequence[Op],
                       live_out: Iterable[str] | None = None,
                       shared_device: bool = False, pairs: Sequence[Copy] = ()) -> RegionGraph:
    """The kernel-vector graph of a straight-line region (see the module docstring).
    ``pairs``: copies made elsewhere (in the body of a loop of the region) that pair buffers
    into operands as the region's own copies do, without being operations here."""
    return _RegionBuilder(buffers, ops, live_out, shared_device, pairs).build()


@dataclass
class _RegionBuilder:
    buffers: Sequence[Buffer]
    ops: Sequence[Op]
    live_out: Iterable[str] | None
    shared_device: bool = False
    pairs: Sequence[Copy] = ()
    by_name: dict[str, Buffer] = field(default_factory=dict)
    #: buffer -> the buffer it is first copied to or from (the partner of its one-sided values)
    partner: dict[str, str] = field(default_factory=dict)
    operands: list[Operand] = field(default_factory=list)
    specs: list[dict] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    op_of_kernel: list[int] = field(default_factory=list)
    value: dict[str, int | None] = field(default_factory=dict)
    freed: set[str] = field(default_factory=set)
    last_touch: dict[str, int] = field(default_factory=dict)
    entered: dict[str, set[int]] = field(default_factory=dict)

    def build(self) -> RegionGraph:
        self.by_name = {b.name: b for b in self.buffers}
        self._check_copies()
        for number, op in enumerate(self.ops):
            self._step(number, op)
        self._mark_live_out()
        return self._result()

    # -- operands ---------------------------------------------------------------------

    def _buffer(self, name: str, span: SourceSpan | None, space: str | None = None) -> Buffer:
        buffer = self.by_name.get(name)
        if buffer is None:
            raise UnsupportedConstruct(f"unknown buffer '{name}' in the transfer region", span,
                                       "transfers-unknown-buffer")
        if space is not None and buffer.space != space:
            raise UnsupportedConstruct(f"'{name}' is a {buffer.space} buffer used as a {space} operand",
                                       span, "transfers-space")
        return buffer

    def _check_copies(self) -> None:
        """Every copy goes between the spaces and moves whole buffers; each buffer's first
        partner is recorded (:meth:`_operands`), the copies of ``pairs`` (a loop body's)
        after the region's own."""
        for op in (*self.ops, *self.pairs):
            if not isinstance(op, Copy):
                continue
            dst, src = self._buffer(op.dst, op.span), self._buffer(op.src, op.span)
            if dst.space == src.space:
                raise UnsupportedConstruct(f"copy from '{src.name}' to '{dst.name}' stays in {dst.space} "
                                           "memory", op.span, "transfers-copy-kind")
            if op.nbytes is not None and not op.nbytes == dst.size == src.size:
                raise UnsupportedConstruct(f"copy of {op.nbytes} bytes between '{src.name}' ({src.size}) "
                                           f"and '{dst.name}' ({dst.size}) is partial", op.span,
                                           "transfers-partial-copy")
            self.partner.setdefault(dst.name, src.name)
            self.partner.setdefault(src.name, dst.name)

    def _operands(self) -> list[int]:
        """Operands from the values' (host, device) pairs and those of the copies of ``pairs``
        (a loop body's: its copies move by the slots these operands get), in the order of the
        buffers (a one-sided value takes its buffer's first partner; a buffer without values
        gets an operand of its own); returns the operand of every value."""
        pairs = []
        for spec in self.specs:
            host = spec[HOST] or self.partner.get(spec[DEVICE])
            device = spec[DEVICE] or self.partner.get(spec[HOST])
            pairs.append((host, device))
        elsewhere = [(op.src, op.dst) if self.by_name[op.src].space == HOST else (op.dst, op.src)
                     for op in self.pairs if isinstance(op, Copy)]
        distinct = list(dict.fromkeys(pairs + elsewhere))
        ordered: list[tuple[str | None, str | None]] = []
        for buffer in self.buffers:
            mine = [p for p in distinct if buffer.name in p and p not in ordered]
            if not mine and not any(buffer.name in p for p in ordered):
                other = self.partner.get(buffer.name)
                mine = [(buffer.name, other) if buffer.space == HOST else (other, buffer.name)]
            ordered += mine
        hosts = [h for h, _ in ordered]
        for host, device in ordered:
            name = host or device if host is None or hosts.count(host) == 1 else f"{host}@{device}"
            self.operands.append(Operand(name, host, device))
        return [ordered.index(p) for p in pairs]

    # -- values -----------------------------------------------------------------------

    def _new_value(self, buffer: Buffer, producer: int | None, entry: int | None,
                   origin: int | None = None) -> int:
        """A new value in ``buffer``; ``origin``: the value it is a second vector of."""
        number = len(self.specs)
        self.specs.append({HOST: None, DEVICE: None, buffer.space: buffer.name, "producer": producer,
                           "entry": entry, "origin": number if origin is None else origin,
                           "live_out": set(), "upload_by": None, "download_from": None,
                           "upload_from": None, "download_by": None})
        return number

    def _family(self, value: int, space: str, name: str) -> list[int]:
        """The vectors of ``value`` (itself and its second vectors) stored in ``name``."""
        origin = self.specs[value]["origin"]
        return [v for v, spec in enumerate(self.specs) if spec["origin"] == origin and spec[space] == name]

    def _paired(self, value: int, src: Buffer, dst: Buffer, span: SourceSpan | None) -> int:
        """The vector of ``value`` that a copy from ``src`` puts into ``dst``: the value's own
        when it has no partner on ``dst``'s side yet (or it is ``dst``), else a second vector
        with the same producer, stored in ``src`` and ``dst``."""
        spec = self.specs[value]
        if spec[dst.space] in (None, dst.name):
            spec[dst.space] = dst.name
            return value
        for other in self._family(value, dst.space, dst.name):
            if self.specs[other][src.space] == src.name:
                return other
        if self._home(value) != SPACE_DEVICE[src.space]:
            raise UnsupportedConstruct(
                f"the value '{src.name}' holds came from '{spec[dst.space]}' and is copied on to "
                f"'{dst.name}': a move within {dst.space} memory through the {src.space} that one "
                "transfer per value cannot express", span, "transfers-aliased-buffers")
        second = self._new_value(src, spec["producer"], spec["entry"], spec["origin"])
        self.specs[second][dst.space] = dst.name
        producer = spec["producer"]
        if producer is not None:
            kernel = self.kernels[producer]
            self.kernels[producer] = replace(kernel, writes=kernel.writes + (second,))
        return second

    def _read(self, name: str, space: str, span: SourceSpan | None) -> int:
        buffer = self._buffer(name, span, space)
        if name in self.freed:
            raise UnsupportedConstruct(f"'{name}' is used after it was freed", span, "transfers-use-after-free")
        if self.value.get(name) is None:
            if buffer.local:
                raise UnsupportedConstruct(f"'{name}' is read before anything is written to it", span,
                                           "transfers-uninitialized")
            self.value[name] = self._new_value(buffer, None, SPACE_DEVICE[space])
        return self.value[name]

    def _home(self, value: int) -> int:
        spec = self.specs[value]
        return spec["entry"] if spec["producer"] is None else self.kernels[spec["producer"]].device

    def _host_overwritten(self, name: str, point: int, incoming: int | None) -> None:
        """The host buffer ``name`` gets a new value at ``point``: bound the old value's
        upload and, for a downloaded value, its download."""
        old = self.value.get(name)
        for vector in (self._family(old, HOST, name) if old is not None else ()):
            spec = self.specs[vector]
            spec["upload_by"] = point if spec["upload_by"] is None else min(spec["upload_by"], point)
        if incoming is not None:
            spec = self.specs[incoming]
            spec["download_from"] = max(spec["download_from"] or 0, point)

    def _device_entered(self, name: str, incoming: int, point: int, span: SourceSpan | None,
                        kernel_write: bool = False) -> None:
        """Device buffer ``name`` (not renamed) gets ``incoming`` at ``point``: the previous
        value's download must come first; an upload may not disturb the previous value."""
        seen = self.entered.setdefault(name, set())
        if incoming in seen:
            raise UnsupportedConstruct(f"a value returns to '{name}' after the buffer held another "
                                       "one; a single transfer per value cannot express that", span,
                                       "transfers-device-reuse")
        seen.add(incoming)
        previous = self.value.get(name)
        incoming_spec = self.specs[incoming]
        if previous is not None and self._home(previous) == GPU:
            for vector in self._family(previous, DEVICE, name):
                spec = self.specs[vector]
                spec["download_by"] = point if spec["download_by"] is None else min(spec["download_by"], point)
            if not kernel_write:
                incoming_spec["upload_from"] = max(incoming_spec["upload_from"] or 0, point)
        if not kernel_write and name in self.last_touch:
            incoming_spec["upload_from"] = max(incoming_spec["upload_from"] or 0,
                                               self.last_touch[name] + 1)

    def _step(self, number: int, op: Op) -> None:
        point = len(self.kernels)
        if isinstance(op, Alloc):
            self._buffer(op.buffer, op.span, DEVICE)
            self.last_touch[op.buffer] = point - 1
        elif isinstance(op, Free):
            self._buffer(op.buffer, op.span)
            self.freed.add(op.buffer)
        elif isinstance(op, Copy):
            src, dst = self._buffer(op.src, op.span), self._buffer(op.dst, op.span)
            value = self._read(op.src, src.space, op.span)
            if src.space == DEVICE and self._home(value) == CPU and self.value.get(op.dst) is not None \
                    and self.specs[self.value[op.dst]]["origin"] == self.specs[value]["origin"]:
                value = self.value[op.dst]  # the host value comes back to its own buffer
            value = self._paired(value, src, dst, op.span)
            if src.space == DEVICE:
                if self._home(value) == CPU and self.value.get(op.dst) != value:
                    raise UnsupportedConstruct(
                        f"'{op.dst}' gets back a host value after the host overwrote it; a single "
                        "transfer per value cannot express that", op.span, "transfers-reload")
                self._host_overwritten(op.dst, point, value)
            if op.dst in self.freed:
                raise UnsupportedConstruct(f"'{op.dst}' is used after it was freed", op.span,
                                           "transfers-use-after-free")
            if self.shared_device and src.space == HOST and self.value.get(op.dst) != value:
                self._device_entered(op.dst, value, point, op.span)
            self.value[op.dst] = value
        else:
            space = DEVICE if isinstance(op, Launch) else HOST
            reads = tuple(dict.fromkeys(self._read(name, space, op.span) for name in op.reads))
            writes = []
            for name in dict.fromkeys(op.writes):
                buffer = self._buffer(name, op.span, space)
                if name in self.freed:
                    raise UnsupportedConstruct(f"'{name}' is used after it was freed", op.span,
                                               "transfers-use-after-free")
                if space == HOST:
                    self._host_overwritten(name, point, None)
                new = self._new_value(buffer, point, None)
                if self.shared_device and space == DEVICE:
                    self._device_entered(name, new, point, op.span, kernel_write=True)
                self.value[name] = new
                writes.append(self.value[name])
            if space == DEVICE:
                self.last_touch.update((name, point) for name in (*op.reads, *op.writes))
            self.kernels.append(Kernel(op.name, SPACE_DEVICE[space], reads, tuple(writes), op.span))
            self.op_of_kernel.append(number)

    def _mark_live_out(self) -> None:
        names = set(self.live_out) if self.live_out is not None else \
            {b.name for b in self.buffers if b.name not in self.freed}
        for name in sorted(names):
            buffer = self._buffer(name, None)
            if name in self.freed or self.value.get(name) is None:
                continue
            self.specs[self.value[name]]["live_out"].add(SPACE_DEVICE[buffer.space])

    def _result(self) -> RegionGraph:
        operand_of = self._operands()
        per_operand: dict[int, list[int]] = {}
        for number, operand in enumerate(operand_of):
            per_operand.setdefault(operand, []).append(number)
        vectors = []
        for number, spec in enumerate(self.specs):
            operand = self.operands[operand_of[number]]
            versions = per_operand[operand_of[number]]
            name = operand.name if len(versions) == 1 else f"{operand.name}.{versions.index(number)}"
            movable = all(self.by_name[b].can_move for b in (operand.host, operand.device) if b is not None)
            size = self.by_name[operand.host or operand.device].size
            vectors.append(Vector(name, size, spec["entry"], frozenset(spec["live_out"]), operand.name,
                                  movable, spec["upload_by"], spec["download_from"],
                                  spec["upload_from"], spec["download_by"]))
        try:
            graph = KernelVectorGraph(tuple(vectors), tuple(self.kernels))
        except GraphError as error:  # a value needed on the host at two separate times
            raise UnsupportedConstruct(f"cannot plan the transfers of this region: {error}", None,
                                       "transfers-window") from error
        return RegionGraph(graph, tuple(self.operands), tuple(operand_of), tuple(self.op_of_kernel))
