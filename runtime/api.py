"""Public API of the s2s runtime: a Runtime object owning devices, virtual buffers and kernel modules.

    rt = Runtime(backend="cpu", devices=4)          # or S2S_BACKEND / S2S_DEVICES
    mod = rt.load_module(source_text, name="saxpy.cu")
    x = rt.malloc(n * 4)
    rt.memcpy_htod(x, host_array)                   # linear distribution over the devices by default
    stats = rt.launch(mod["saxpy"], grid, block, [n, 2.5, x, y], access=model)
    rt.memcpy_dtoh(host_array, y)

Pointer arguments and memcpy operands are VirtualBuffers, ``buffer + offset`` (DevicePointer) or integer
virtual addresses (``buf.addr + k``), which is what the C interface passes.  Everything is an explicit
object (no import-time state); the C interface keeps one Runtime per process.
"""

from __future__ import annotations

import ctypes
import os
import stat
import time

import numpy as np

from runtime import launch as launch_mod
from runtime.buffers import HOST, AddressSpace, DevicePointer, VirtualBuffer, check_host_range, device_bit
from runtime.coherence import TransferStats, location_name
from runtime.cpu import module as cpu_module
from runtime.cpu.compiler import kernel_flags
from runtime.cpu.device import CpuDevice
from runtime.cpu.source import source_text
from runtime.errors import AddressError, BackendUnavailable, ConfigError, SourceFileError
from runtime.partition import dim3
from runtime.placement import PendingCopies

DISTRIBUTIONS = ("linear", "host", "launch")


def _cuda_devices(count: int | None):
    from runtime.cuda import device as cuda_device  # optional extra: PyCUDA is imported only when asked
    return cuda_device.open_devices(count)


def select_backend(name: str | None) -> str:
    """cpu, cuda, or auto (cuda where PyCUDA finds a GPU, cpu otherwise)."""
    name = (name or os.environ.get("S2S_BACKEND") or "auto").lower()
    if name not in ("cpu", "cuda", "auto"):
        raise ConfigError(f"backend {name!r}: expected cpu, cuda or auto")
    if name == "auto":
        try:
            _cuda_devices(None)
            return "cuda"
        except (ImportError, BackendUnavailable):  # no PyCUDA, no driver, no GPU: all mean "use cpu"
            return "cpu"
    return name


def _device_count(devices: int | None) -> int | None:
    if devices is not None:
        count = devices
    elif os.environ.get("S2S_DEVICES"):
        text = os.environ["S2S_DEVICES"]
        if not text.isdigit():
            raise ConfigError(f"S2S_DEVICES={text!r}: expected a positive integer")
        count = int(text)
    else:
        return None
    if count < 1:
        raise ConfigError(f"device count {count}: expected at least 1")
    return count


def device_memory(devices: list) -> int:
    """The allocation limit: S2S_DEVICE_MEMORY (bytes) if set, else the smallest device's memory."""
    text = os.environ.get("S2S_DEVICE_MEMORY")
    if text is None:
        return min(device.memory() for device in devices)
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f"S2S_DEVICE_MEMORY={text!r}: expected a positive number of bytes")
    return int(text)


class KernelHandle:
    """A kernel of a RuntimeModule: its parameter list and its per-device executable form."""

    def __init__(self, name: str, params, per_device):
        self.name, self.params = name, params
        self._per_device = per_device
        #: parameter index -> byte offsets of the device pointers its by-value argument holds (a
        #: struct ``{int n; float *data;}``): the tool reads the layout from the AST
        #: (``s2s_set_access``'s ``held_pointers``); each launch translates them per device
        self.held: dict[int, tuple[int, ...]] = {}

    def on(self, device: int):
        return self._per_device(device)


class RuntimeModule:
    """A kernel source loaded for every device of a runtime."""

    def __init__(self, runtime: Runtime, cpu_module, device_modules):
        self._runtime, self._cpu, self._device_modules = runtime, cpu_module, device_modules
        self._handles: dict[str, KernelHandle] = {}

    def copy_symbol(self, symbol: str, host: int, nbytes: int, offset: int, to_symbol: bool) -> None:
        """Copy between host memory and the module's variable ``symbol`` (every device's copy
        when writing: each device holds its own; reading takes device 0's)."""
        owners = [self._cpu] if self._device_modules is None else self._device_modules
        for owner in owners if to_symbol else owners[:1]:
            owner.copy_symbol(symbol, host, nbytes, offset, to_symbol)

    @property
    def kernel_names(self) -> list[str]:
        return list(self._cpu.kernels)

    def __getitem__(self, name: str) -> KernelHandle:
        handle = self._handles.get(name)
        if handle is None:
            described = self._cpu[name]          # parameter layout comes from the host compiler
            if self._device_modules is None:
                handle = KernelHandle(name, described.params, lambda _d, k=described: k)
            else:
                mods = self._device_modules
                handle = KernelHandle(name, described.params, lambda d, n=name: mods[d].kernel(n))
            self._handles[name] = handle
        return handle


class Runtime:
    """Devices of one backend, the virtual buffers spread over them, and statistics."""

    def __init__(self, backend: str | None = None, devices: int | None = None, threads: int | None = None,
                 distribute: str | None = None):
        self.backend = select_backend(backend)
        count = _device_count(devices)
        if self.backend == "cpu":
            self.devices = [CpuDevice(i, threads) for i in range(count or 1)]
        else:
            self.devices = _cuda_devices(count)
        self.distribute = distribute or os.environ.get("S2S_DISTRIBUTE", "linear")
        if self.distribute not in DISTRIBUTIONS:
            raise ConfigError(f"distribution {self.distribute!r}: expected one of {DISTRIBUTIONS}")
        self.space = AddressSpace(device_memory(self.devices))
        self.launches: list[launch_mod.LaunchStats] = []
        self.copy_stats = TransferStats()
        self._modules: dict[tuple, RuntimeModule] = {}
        self.pending = PendingCopies()        # ``launch`` mode: copies waiting for their first launch
        self.launch_shapes: dict = {}         # launch shape -> plan (runtime/launch.py, ``cached_plan``)

    def route_copies(self, copies: list) -> list:
        """The copies a launch issues, as planned (hook: under MPI bytes that several devices of one rank
        fetch from another rank cross once; runtime/mpi/runtime.py)."""
        return copies

    def _host_copy(self, dst: int, src: int, nbytes: int) -> None:
        """Host memory to host memory (hook: under MPI only rank 0, where the program runs, holds the
        program's host memory; runtime/mpi/runtime.py)."""
        ctypes.memmove(dst, src, nbytes)

    def _host_fill(self, dst: int, value: int, nbytes: int) -> None:
        """Fill host memory (hook, as ``_host_copy``)."""
        ctypes.memset(dst, value, nbytes)

    @property
    def device_count(self) -> int:
        return len(self.devices)

    # ---- modules and launches ----
    def copy_symbol(self, module: RuntimeModule, symbol: str, host: int, nbytes: int, offset: int,
                    to_symbol: bool) -> None:
        """cudaMemcpyToSymbol / FromSymbol on a variable of ``module`` (the MPI runtime mirrors a
        write to every rank, whose devices hold their own copies)."""
        module.copy_symbol(symbol, host, nbytes, offset, to_symbol)

    def load_module(self, source: str | None = None, path: str | None = None, name: str | None = None,
                    instantiate: list[str] | None = None, include_dirs: list | None = None,
                    flags: list[str] | None = None) -> RuntimeModule:
        """Kernels of a CUDA source (text, or read from ``path``; its directory joins the include path);
        ``flags``: the program's -D/-U/-I/-std flags (runtime.cpu.compiler.kernel_flags)."""
        dirs = list(include_dirs or [])
        flags = kernel_flags(flags or ())
        if path is not None:
            source = read_source_file(path)
            dirs.append(os.path.dirname(os.path.abspath(path)))
            name = name or os.path.basename(path)
        if source is None:
            raise ConfigError("load_module needs source text or a path")
        name = name or "kernels.cu"
        key = (source, name, tuple(instantiate or ()), tuple(map(str, dirs)), flags)
        if key not in self._modules:
            cpu = self.devices[0].load(source, name, instantiate, dirs, flags) if self.backend == "cpu" else None
            if self.backend == "cpu":
                self._modules[key] = RuntimeModule(self, cpu, None)
            else:
                described = cpu_module.load(source, name, instantiate, dirs, flags)
                per_device = [d.load(source, name, instantiate, dirs, described, flags) for d in self.devices]
                self._modules[key] = RuntimeModule(self, described, per_device)
        return self._modules[key]

    def launch(self, kernel: KernelHandle, grid, block, args, shared: int = 0, access=None,
               partition: str = "auto") -> launch_mod.LaunchStats:
        start = time.perf_counter()
        again = self._place_pending(kernel, grid, block, list(args), access, partition) \
            if self.pending else None
        placing = time.perf_counter() - start
        stats = launch_mod.run(self, kernel, grid, block, list(args), shared, access, partition)
        if again is not None:
            # the plan was built (and the staged copies uploaded) here: bookkeeping of this launch
            stats.bookkeeping_s += placing
            if again.copies:                     # halo bytes the placement sent to a second device
                stats.transfers.merge(again)
        self.launches.append(stats)
        return stats

    def _place_pending(self, kernel, grid, block, args, access, partition) -> TransferStats | None:
        """Staged copies of this launch's buffers go where the launch runs (runtime/placement.py);
        returns the uploads that count as the launch's traffic (bytes a second device reads)."""
        pointers = launch_mod.resolve_pointers(self, kernel, args)
        waiting = {ptr.buffer for ptr in pointers.values() if self.pending.has(ptr.buffer)}
        if not waiting:
            return None
        plan = launch_mod.cached_plan(self.launch_shapes, kernel, dim3(grid), dim3(block), args, pointers,
                                      access, len(self.devices), partition)
        used = {device for device, _box in plan.boxes}
        target = next(iter(used)) if len(used) == 1 else None
        stats, again = TransferStats(), TransferStats()
        for buffer in waiting:
            reads = [(d, lo, hi) for d, buf, lo, hi in plan.reads if buf is buffer] if target is None else ()
            self.pending.place(buffer, self.devices, target, _linear_cuts, stats, reads, again,
                               split_launch=target is None)
        self.copy_stats.merge(stats)
        return again

    def _place_linearly(self, *pointers) -> None:
        for ptr in pointers:
            if self.pending.has(ptr.buffer):
                self.pending.place(ptr.buffer, self.devices, None, _linear_cuts, self.copy_stats)

    def read_hint(self, kernel: KernelHandle, grid, block, args, access, target,
                  partition: str = "auto") -> dict[int, list[tuple[int, int]]]:
        """Byte ranges (relative to ``target``) each device will read in that launch: a ``distribute`` hint
        for memcpy_htod, so a copy puts the data where the next kernel reads it."""
        dst = self.space.resolve(target)
        grid, block = dim3(grid), dim3(block)
        pointers = launch_mod.resolve_pointers(self, kernel, list(args))
        plan = launch_mod.partition_plan(kernel, grid, block, list(args), pointers, access, len(self.devices),
                                         partition)
        hint: dict[int, list[tuple[int, int]]] = {}
        for device, buf, lo, hi in plan.reads:
            if buf is dst.buffer:
                hint.setdefault(device, []).append((lo - dst.offset, hi - dst.offset))
        return hint

    def synchronize(self) -> None:
        for device in self.devices:
            device.synchronize()

    def reset(self) -> None:
        """cudaDeviceReset: every live allocation is freed, as a GPU's context destruction frees
        them, so that a pointer used after the reset is reported (use after free) instead of
        reading memory a GPU would no longer have."""
        self.synchronize()
        for buffer in self.space.live_buffers():
            self.free(buffer)

    # ---- memory ----
    def malloc(self, nbytes: int) -> VirtualBuffer:
        return self.space.allocate(int(nbytes), self.devices)

    def free(self, pointer) -> None:
        ptr = self.space.resolve(pointer)
        if ptr.offset:
            raise AddressError(f"free of {ptr.addr:#x}, which is inside an allocation, not its start")
        self.space.remove(ptr.buffer)
        self.pending.drop(ptr.buffer)
        ptr.buffer.release()

    def memcpy_htod(self, dst, src, nbytes: int | None = None, distribute=None) -> TransferStats:
        """Host data -> virtual buffer: split linearly over the devices, staged on the host, or by a hint.

        ``distribute``: ``"linear"``, ``"host"`` (devices fetch what they read at their next launch),
        ``"launch"`` (staged, then placed by the next launch that takes the buffer: linearly when it is
        split, on its one device otherwise; runtime/placement.py) or a dict {device: [(lo, hi), ...]} of
        byte ranges relative to ``dst`` (e.g. the next kernel's reads).
        """
        src_addr, nbytes = host_span(src, nbytes)
        ptr = self.space.resolve(dst, nbytes)
        mode = distribute or self.distribute
        stats = TransferStats()
        start = time.perf_counter()
        if mode == "linear":
            cuts = _linear_cuts(nbytes, len(self.devices))
            for d, (a, b) in enumerate(zip(cuts, cuts[1:], strict=False)):
                if a < b:
                    self.devices[d].upload(ptr.buffer.instance(d) + ptr.offset + a, src_addr + a, b - a)
                    ptr.buffer.tracker.assign(ptr.offset + a, ptr.offset + b, device_bit(d))
                    _count(stats, "host", self.devices[d].name, b - a)
        else:
            host = ptr.buffer.host()
            self._host_copy(host.ctypes.data + ptr.offset, src_addr, nbytes)
            ptr.buffer.tracker.assign(ptr.offset, ptr.offset + nbytes, 1 << HOST)
            if mode == "launch":
                self.pending.add(ptr.buffer, ptr.offset, ptr.offset + nbytes)
            elif mode != "host":
                for d, ranges in dict(mode).items():
                    for lo, hi in ranges:
                        a, b = max(0, lo), min(nbytes, hi)
                        if a < b:
                            self.devices[d].upload(ptr.buffer.instance(d) + ptr.offset + a,
                                                   host.ctypes.data + ptr.offset + a, b - a)
                            ptr.buffer.tracker.add(ptr.offset + a, ptr.offset + b, device_bit(d))
                            _count(stats, "host", self.devices[d].name, b - a)
        stats.seconds = time.perf_counter() - start
        self.copy_stats.merge(stats)
        return stats

    def memcpy_dtoh(self, dst, src, nbytes: int | None = None) -> TransferStats:
        """Virtual buffer -> host memory, gathered from whichever copies hold each segment."""
        dst_addr, nbytes = host_span(dst, nbytes, writable=True)
        ptr = self.space.resolve(src, nbytes)
        stats = TransferStats()
        start = time.perf_counter()
        for a, b, mask in ptr.buffer.tracker.query(ptr.offset, ptr.offset + nbytes):
            out = dst_addr + (a - ptr.offset)
            if mask & (1 << HOST):
                self._host_copy(out, ptr.buffer.host().ctypes.data + a, b - a)
                continue
            d = _first_device(mask, len(self.devices))
            self.devices[d].download(out, ptr.buffer.instance(d) + a, b - a)
            _count(stats, self.devices[d].name, "host", b - a)
        stats.seconds = time.perf_counter() - start
        self.copy_stats.merge(stats)
        return stats

    def memcpy_dtod(self, dst, src, nbytes: int) -> TransferStats:
        """Virtual buffer -> virtual buffer: each segment copied on a device that holds it (n:n)."""
        s = self.space.resolve(src, nbytes)
        t = self.space.resolve(dst, nbytes)
        self._place_linearly(s, t)
        stats = TransferStats()
        for a, b, mask in s.buffer.tracker.query(s.offset, s.offset + nbytes):
            lo = t.offset + (a - s.offset)
            if mask & ~1:
                d = _first_device(mask, len(self.devices))
                self.devices[d].copy_local(t.buffer.instance(d) + lo, s.buffer.instance(d) + a, b - a)
                t.buffer.tracker.assign(lo, lo + b - a, device_bit(d))
                _count(stats, self.devices[d].name, self.devices[d].name, b - a)
            else:
                ctypes.memmove(t.buffer.host().ctypes.data + lo, s.buffer.host().ctypes.data + a, b - a)
                t.buffer.tracker.assign(lo, lo + b - a, 1 << HOST)
        self.copy_stats.merge(stats)
        return stats

    def memset(self, dst, value: int, nbytes: int) -> None:
        """Fill bytes; each device fills its linear share, like a linear host-to-device copy."""
        ptr = self.space.resolve(dst, nbytes)
        if self.distribute == "launch":        # filled where the next launch runs (runtime/placement.py)
            self._host_fill(ptr.buffer.host().ctypes.data + ptr.offset, value & 0xFF, nbytes)
            ptr.buffer.tracker.assign(ptr.offset, ptr.offset + nbytes, 1 << HOST)
            self.pending.add(ptr.buffer, ptr.offset, ptr.offset + nbytes, value & 0xFF)
            return
        self._place_linearly(ptr)
        cuts = _linear_cuts(nbytes, len(self.devices))
        for d, (a, b) in enumerate(zip(cuts, cuts[1:], strict=False)):
            if a < b:
                self.devices[d].fill(ptr.buffer.instance(d) + ptr.offset + a, value & 0xFF, b - a)
                ptr.buffer.tracker.assign(ptr.offset + a, ptr.offset + b, device_bit(d))

    def holders(self, pointer, nbytes: int) -> list[tuple[int, int, list[str]]]:
        """Who holds which bytes (for tests and debugging): (lo, hi, [location names])."""
        ptr = self.space.resolve(pointer, nbytes)
        return [(a, b, [location_name(self.devices, loc) for loc in range(len(self.devices) + 1)
                        if mask >> loc & 1])
                for a, b, mask in ptr.buffer.tracker.query(ptr.offset, ptr.offset + nbytes)]


def _count(stats: TransferStats, src: str, dst: str, nbytes: int) -> None:
    stats.link_bytes[(src, dst)] += nbytes
    stats.copies += 1


def _first_device(mask: int, ndevices: int) -> int:
    for d in range(ndevices):
        if mask & device_bit(d):
            return d
    raise AssertionError(f"no device in holder mask {mask:#b}")


def _linear_cuts(nbytes: int, parts: int, grain: int = 256) -> list[int]:
    """parts+1 boundaries, inner ones rounded to ``grain`` bytes so element boundaries are kept."""
    cuts = [min(nbytes, (nbytes * k // parts) // grain * grain) for k in range(parts)]
    return cuts + [nbytes]


def host_span(obj, nbytes: int | None, writable: bool = False) -> tuple[int, int]:
    """(address, byte count) of host memory: a numpy array, a buffer object or a raw address."""
    if isinstance(obj, (int, np.integer)):
        if nbytes is None:
            raise ConfigError("a raw host address needs an explicit byte count")
        check_host_range(int(obj), int(nbytes))
        return int(obj), int(nbytes)
    if isinstance(obj, (VirtualBuffer, DevicePointer)):
        raise ConfigError("a device pointer where host memory was expected")
    arr = obj if isinstance(obj, np.ndarray) else np.frombuffer(obj, dtype=np.uint8)
    if not arr.flags.c_contiguous:
        raise ConfigError("host array must be C-contiguous")
    if writable and not arr.flags.writeable:
        raise ConfigError("destination host array is read-only")
    size = arr.nbytes if nbytes is None else int(nbytes)
    if not 0 <= size <= arr.nbytes:
        raise AddressError(f"{size} bytes requested from a host array of {arr.nbytes} bytes")
    return arr.ctypes.data, size


#: the largest kernel source file load_module reads (as the tool's MAX_SOURCE_BYTES)
MAX_SOURCE_BYTES = 64 * 1024 * 1024


def read_source_file(path: str | os.PathLike, limit: int = MAX_SOURCE_BYTES) -> str:
    """The text of a kernel source file. Why not ``open().read()``: a FIFO would block it forever
    and /dev/zero would fill memory; the file is opened without blocking and checked with
    ``fstat`` before any byte is read: regular files of at most ``limit`` bytes only
    (SourceFileError otherwise, cudaErrorInvalidValue from the C interface)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise SourceFileError(f"cannot open kernel source {os.fspath(path)!r}: "
                              f"{error.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SourceFileError(f"kernel source {os.fspath(path)!r} is not a regular file")
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise SourceFileError(f"kernel source {os.fspath(path)!r} is larger than {limit} bytes")
    return source_text(data)
