"""Kernel-vector graphs, transfer windows and device residency (Kessler, sections 3 and 4).

A straight-line kernel program is a bipartite DAG ``G = (K, V, E)``: kernels in schedule order
(index ``i`` is the i-th call, ``device`` 0 = CPU, 1 = accelerator) and single-assignment
vectors (each written at most once). Everything else in :mod:`s2s.analysis.transfers` works
on this frozen graph.

Time is counted in *points* between kernels: point ``p`` lies just before kernel ``p`` and
just after kernel ``p - 1``; point ``N`` (``N`` kernels) is after the last one. The paper
writes an upload at point ``p`` as "before p" and a download at point ``p`` as "after p-1".
Using one axis for both directions keeps every window a plain closed integer interval.

Two generalisations of the paper's model, both needed to describe real host code (see
:mod:`s2s.analysis.transfers.region`), and both neutral on the paper's examples:

* a live-on-entry vector may already be on the accelerator (``entry=GPU``: a device buffer
  filled before the region) and a vector may have to be on either device at exit
  (``live_out``); the paper's live-on-exit vectors have ``live_out={CPU}``;
* a window may be clipped by storage reuse (``upload_by``: the host storage is overwritten
  at that point; ``download_from``: the host storage is still in use before that point;
  ``upload_from`` and ``download_by``: the same for *device* storage shared by several
  values, as when a rewrite keeps the program's device buffers instead of renaming them).

``fusable=False`` marks a vector whose host storage cannot be moved (it escapes, or is
allocated outside the rewritten scope): it is transferred alone.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from s2s.model.span import SourceSpan

CPU = 0
GPU = 1
DEVICE_NAMES = ("CPU", "GPU")


class Direction(str, enum.Enum):
    UP = "upload"
    DOWN = "download"


class GraphError(ValueError):
    """A kernel-vector graph that breaks the model (not single assignment, not topological...)."""


@dataclass(frozen=True)
class Vector:
    """One single-assignment operand. ``entry`` is the device holding it on entry (None: a
    kernel produces it); ``live_out`` the devices that must hold it at exit; ``storage`` the
    program buffer it is a version of (renaming keeps it for the code generator)."""

    name: str
    size: int = 1
    entry: int | None = None
    live_out: frozenset[int] = frozenset()
    storage: str | None = None
    fusable: bool = True
    upload_by: int | None = None
    download_from: int | None = None
    upload_from: int | None = None
    download_by: int | None = None


@dataclass(frozen=True)
class Kernel:
    """One kernel call: ``reads`` and ``writes`` are vector indices in operand order."""

    name: str
    device: int
    reads: tuple[int, ...]
    writes: tuple[int, ...]
    span: SourceSpan | None = None


@dataclass(frozen=True)
class Window:
    """The points at which ``vector`` may be transferred in ``direction`` (both ends included):
    the paper's up/dn earliest..latest interval."""

    vector: int
    direction: Direction
    earliest: int
    latest: int

    def overlaps(self, other: Window) -> bool:
        return self.earliest <= other.latest and other.earliest <= self.latest

    def __contains__(self, point: int) -> bool:
        return self.earliest <= point <= self.latest


@dataclass(frozen=True)
class KernelVectorGraph:
    """Vectors and kernels (kernels in schedule order); validated on construction."""

    vectors: tuple[Vector, ...]
    kernels: tuple[Kernel, ...]
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for number, vector in enumerate(self.vectors):
            if vector.name in self._index:
                raise GraphError(f"vector name {vector.name!r} used twice")
            self._index[vector.name] = number
        _validate(self)
        _ = self.windows  # an empty window is a modelling error: report it now

    @property
    def n_points(self) -> int:
        """Number of transfer points (kernels + 1)."""
        return len(self.kernels) + 1

    def index(self, name: str) -> int:
        return self._index[name]

    def name(self, vector: int) -> str:
        return self.vectors[vector].name

    @cached_property
    def producer(self) -> tuple[int | None, ...]:
        """The kernel writing each vector (None for live-on-entry vectors)."""
        result: list[int | None] = [None] * len(self.vectors)
        for number, kernel in enumerate(self.kernels):
            for vector in kernel.writes:
                result[vector] = number
        return tuple(result)

    @cached_property
    def home(self) -> tuple[int, ...]:
        """The device where each vector comes into being."""
        return tuple(
            self.kernels[p].device if p is not None else self.vectors[v].entry
            for v, p in enumerate(self.producer)
        )

    @cached_property
    def uses(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """Per vector, the kernels reading it on the CPU and on the GPU (schedule order)."""
        per_device: list[tuple[list[int], list[int]]] = [([], []) for _ in self.vectors]
        for number, kernel in enumerate(self.kernels):
            for vector in kernel.reads:
                per_device[vector][kernel.device].append(number)
        return tuple((tuple(cpu), tuple(gpu)) for cpu, gpu in per_device)

    @cached_property
    def windows(self) -> tuple[Window, ...]:
        """The transfer window of every vector that must change device, by vector index."""
        return transfer_windows(self)

    def window_of(self, vector: int) -> Window | None:
        return self._window_by_vector.get(vector)

    @cached_property
    def _window_by_vector(self) -> dict[int, Window]:
        return {w.vector: w for w in self.windows}


def _validate(graph: KernelVectorGraph) -> None:
    """Single assignment, topological schedule, every vector defined exactly once."""
    count = len(graph.vectors)
    defined = [v.entry is not None for v in graph.vectors]
    for vector in graph.vectors:
        if vector.entry not in (None, CPU, GPU) or not vector.live_out <= {CPU, GPU}:
            raise GraphError(f"vector {vector.name!r}: devices must be 0 (CPU) or 1 (GPU)")
        if vector.size <= 0:
            raise GraphError(f"vector {vector.name!r}: size must be positive")
    for kernel in graph.kernels:
        if kernel.device not in (CPU, GPU):
            raise GraphError(f"kernel {kernel.name!r}: device must be 0 (CPU) or 1 (GPU)")
        for vector in (*kernel.reads, *kernel.writes):
            if not 0 <= vector < count:
                raise GraphError(f"kernel {kernel.name!r}: no vector {vector}")
        if len(set(kernel.writes)) != len(kernel.writes) or set(kernel.reads) & set(kernel.writes):
            raise GraphError(f"kernel {kernel.name!r}: reads and writes must be distinct vectors "
                             "(rename to single assignment first)")
        for vector in kernel.reads:
            if not defined[vector]:
                raise GraphError(f"kernel {kernel.name!r} reads {graph.vectors[vector].name!r} "
                                 "before it is written (schedule not topological)")
        for vector in kernel.writes:
            if defined[vector]:
                raise GraphError(f"kernel {kernel.name!r} writes {graph.vectors[vector].name!r}, "
                                 "which already has a value (not single assignment)")
            defined[vector] = True
    for vector, is_defined in zip(graph.vectors, defined, strict=True):
        if not is_defined:
            raise GraphError(f"vector {vector.name!r} is neither live on entry nor written")


def transfer_windows(graph: KernelVectorGraph) -> tuple[Window, ...]:
    """Up/down earliest..latest windows (section 4), clipped by storage reuse.

    A vector born on device ``h`` moves once to the other device ``o`` if a kernel on ``o``
    reads it or it is live out on ``o``. Earliest: point 0 for live-on-entry vectors, else
    just after the producer. Latest: just before the first reader on ``o``, else the end.
    """
    end = len(graph.kernels)
    result = []
    for v, vector in enumerate(graph.vectors):
        home = graph.home[v]
        other = 1 - home
        readers = graph.uses[v][other]
        if not readers and other not in vector.live_out:
            continue
        producer = graph.producer[v]
        earliest = 0 if producer is None else producer + 1
        latest = readers[0] if readers else end
        direction = Direction.UP if home == CPU else Direction.DOWN
        if direction is Direction.UP and vector.upload_by is not None:
            latest = min(latest, vector.upload_by)
        if direction is Direction.DOWN and vector.download_from is not None:
            earliest = max(earliest, vector.download_from)
        if direction is Direction.UP and vector.upload_from is not None:
            earliest = max(earliest, vector.upload_from)
        if direction is Direction.DOWN and vector.download_by is not None:
            latest = min(latest, vector.download_by)
        if earliest > latest:
            raise GraphError(f"vector {vector.name!r}: no point to {direction.value} it "
                             f"(window {earliest}..{latest} is empty)")
        result.append(Window(v, direction, earliest, latest))
    return tuple(result)


def device_ranges(graph: KernelVectorGraph, points: Mapping[int, int]) -> dict[int, tuple[int, int]]:
    """Half-open ranges of points ``[start, end)`` during which each vector occupies
    accelerator memory, given the transfer point of every transferred vector.

    Start: the upload point, the producing GPU kernel, or 0 for vectors on the GPU at entry.
    End: after the last GPU reader, the download point, or ``N + 1`` for vectors live out on
    the GPU; whichever is latest (the baseline frees a vector's space after both).
    """
    last = len(graph.kernels)
    result = {}
    for v, vector in enumerate(graph.vectors):
        home = graph.home[v]
        window = graph.window_of(v)
        if home == CPU and (window is None or window.direction is not Direction.UP):
            continue
        if home == CPU:
            start = points[v]
        else:
            producer = graph.producer[v]
            start = 0 if producer is None else producer
        readers = graph.uses[v][GPU]
        end = readers[-1] + 1 if readers else start + (0 if home == CPU else 1)
        if home == GPU and window is not None:
            end = max(end, points[v])
        if GPU in vector.live_out:
            end = last + 1
        result[v] = (start, max(end, start))
    return result


@dataclass(frozen=True)
class Residency:
    """Accelerator memory use of a plan: ``peak`` bytes at any point and ``volume`` in
    byte-points (the sum of size x points resident), the paper's device memory pressure."""

    peak: int
    volume: int


def residency(graph: KernelVectorGraph, points: Mapping[int, int]) -> Residency:
    ranges = device_ranges(graph, points)
    delta = [0] * (graph.n_points + 2)
    volume = 0
    for v, (start, end) in ranges.items():
        size = graph.vectors[v].size
        delta[start] += size
        delta[end] -= size
        volume += size * (end - start)
    peak = running = 0
    for change in delta:
        running += change
        peak = max(peak, running)
    return Residency(peak, volume)


# --- convenient construction and renaming to single assignment --------------------------


@dataclass(frozen=True)
class Call:
    """A kernel call over program buffer names, possibly not single assignment."""

    name: str
    device: int
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    span: SourceSpan | None = None


def rename_to_ssa(calls: Sequence[Call], live_in: Iterable[str] = (),
                  live_out: Iterable[str] | Mapping[str, Iterable[int]] = (),
                  sizes: Mapping[str, int] | None = None,
                  entry_device: Mapping[str, int] | None = None) -> KernelVectorGraph:
    """Build the graph of ``calls``, renaming buffers to single-assignment versions.

    Version ``k`` of buffer ``b`` is named ``b`` when ``b`` has one version, else ``b.k``
    (``b.0`` is the value on entry, or the first write). A call that writes a buffer it also
    reads (an in-place update) reads the old version and writes a new one. As in the paper,
    versions are separate operands: the layout gives each its own place in memory.
    ``live_in`` buffers are on the CPU at entry unless ``entry_device`` says otherwise;
    ``live_out`` buffers (their last version) must be on the CPU at exit, or on the devices
    ``live_out`` maps them to.
    """
    sizes = sizes or {}
    if not isinstance(live_out, Mapping):
        live_out = {buffer: (CPU,) for buffer in live_out}
    entry_device = entry_device or {}
    versions: dict[str, list[int]] = {}
    specs: list[dict] = []

    def new_version(buffer: str, entry: int | None) -> int:
        specs.append(dict(buffer=buffer, entry=entry))
        versions.setdefault(buffer, []).append(len(specs) - 1)
        return len(specs) - 1

    for buffer in live_in:
        new_version(buffer, entry_device.get(buffer, CPU))
    kernels = []
    for call in calls:
        reads = []
        for buffer in call.reads:
            if buffer not in versions:
                raise GraphError(f"{call.name} reads {buffer!r}, which has no value yet "
                                 "(add it to live_in)")
            reads.append(versions[buffer][-1])
        writes = [new_version(buffer, None) for buffer in call.writes]
        kernels.append((call, tuple(reads), tuple(writes)))
    out = {versions[b][-1]: frozenset(devices) for b, devices in live_out.items() if b in versions}
    missing = [b for b in live_out if b not in versions]
    if missing:
        raise GraphError(f"live-out buffers never written nor live in: {', '.join(missing)}")
    vectors = []
    for number, spec in enumerate(specs):
        buffer = spec["buffer"]
        chain = versions[buffer]
        name = buffer if len(chain) == 1 else f"{buffer}.{chain.index(number)}"
        vectors.append(Vector(name, sizes.get(buffer, 1), spec["entry"],
                              out.get(number, frozenset()), buffer))
    return KernelVectorGraph(tuple(vectors), tuple(
        Kernel(call.name, call.device, reads, writes, call.span) for call, reads, writes in kernels))


def graph_from_names(kernels: Sequence[tuple[str, int, Sequence[str], Sequence[str]]],
                     live_in: Sequence[str], live_out: Iterable[str] = (),
                     sizes: Mapping[str, int] | None = None) -> KernelVectorGraph:
    """A single-assignment graph written by vector names: ``(name, device, reads, writes)``
    per kernel. Vectors are numbered live-in first, then in order of first write, as in the
    paper's figures. Raises :class:`GraphError` where the program is not single assignment."""
    calls = [Call(name, device, tuple(reads), tuple(writes)) for name, device, reads, writes in kernels]
    written = [b for call in calls for b in call.writes]
    if len(set(written)) != len(written) or set(written) & set(live_in):
        raise GraphError("graph_from_names needs single-assignment names; use rename_to_ssa")
    return rename_to_ssa(calls, live_in, live_out, sizes)
