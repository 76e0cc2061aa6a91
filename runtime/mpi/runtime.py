"""``MpiRuntime``: the runtime whose every state-changing call rank 0 sends to the other ranks.

Rank 0 runs the program and calls the runtime as always; each call that changes the runtime's state
(malloc, free, the memcpys, memset, synchronize, load_module, launch) is first sent to the other ranks
as a small pickled command, then run on rank 0 while the other ranks run it too (``session.serve``).
Every rank therefore makes the same allocations at the same virtual addresses, the same tracker
updates and the same copy plans over the devices of all ranks; each does only its own part of the
work (``devices.RankDevice``): its boxes of a launch, and its ends of the copies that cross ranks.
What a command carries: integers (virtual and host addresses, sizes), the launch arguments, and
references to modules, kernels and access models by the order in which rank 0 first used them (the
module's source and the access model's dictionary are sent once).

Errors: a check that fails (an address past an allocation, a freed pointer ...) fails the same way on
every rank, because the state is the same, and rank 0 returns it to the program as before.  A rank
that fails where rank 0 did not (its compiler, a kernel that traps on its box) ends the job at the
next command with its message (``session``); rank 0 sends its outcome with every command for that
comparison.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pickle

from runtime.api import Runtime, device_memory, host_span
from runtime.buffers import HOST, AddressSpace, DevicePointer, VirtualBuffer
from runtime.coherence import Copy
from runtime.errors import ConfigError, RuntimeFailure
from runtime.mpi.devices import HOST_RANK, RankDevice


def _address(pointer):
    """A device pointer as the integer virtual address every rank resolves the same way."""
    if isinstance(pointer, (VirtualBuffer, DevicePointer)):
        return pointer.addr
    return pointer


class MpiRuntime(Runtime):
    """A Runtime over the devices of all ranks of ``transport``; see the module docstring."""

    def __init__(self, transport, backend: str | None = None, devices: int | None = None,
                 threads: int | None = None, distribute: str | None = None):
        self.mpi = transport
        self.outcome: str | None = None          # rank 0: the last command's error, sent with the next
        self._module_list: list = []
        self._module_ids: dict[int, int] = {}
        self._kernel_refs: dict[int, tuple] = {}
        self._access_list: list = []
        self._access_ids: dict[int, tuple] = {}
        try:                                     # this rank's devices; every rank learns every outcome
            super().__init__(backend, devices, threads, distribute)
            view = (self.backend, len(self.devices), device_memory(self.devices), None)
        except RuntimeFailure as error:
            view = (None, 0, 0, str(error))
        views = transport.allgather(view)
        _check_views(views)
        backend_name, per_rank = views[0][0], views[0][1]
        memory = min(v[2] for v in views)
        local = self.devices
        self.devices = [RankDevice(r * per_rank + i, r, local[i] if r == transport.rank else None,
                                   transport, memory, backend_name)
                        for r in range(transport.size) for i in range(per_rank)]
        self.devices_per_rank = per_rank
        self.space = AddressSpace(memory)
        self.cuda_aware = cuda_aware(backend_name)

    @property
    def is_root(self) -> bool:
        return self.mpi.rank == HOST_RANK

    def _host_copy(self, dst: int, src: int, nbytes: int) -> None:
        if self.is_root:
            super()._host_copy(dst, src, nbytes)

    def route_copies(self, copies: list) -> list:
        """Bytes that several devices of one rank fetch from another rank (a matrix every box reads)
        cross the rank boundary once: the first device receives them, the others copy from it, after
        the receive completed (``RankDevice.copy_from_peer`` defers a local copy while receives are
        pending).  Only identical ranges are merged; the local copies go last."""
        first: dict[tuple, int] = {}
        crossing, local = [], []
        for c in copies:
            src_rank = HOST_RANK if c.src == HOST else self.devices[c.src - 1].rank
            dst_rank = self.devices[c.dst - 1].rank
            key = (c.buffer.addr, c.src, dst_rank, c.lo, c.hi)
            if src_rank != dst_rank and key in first:
                local.append(Copy(c.buffer, first[key], c.dst, c.lo, c.hi))
                continue
            if src_rank != dst_rank:
                first[key] = c.dst
            crossing.append(c)
        return crossing + local

    # ---- rank 0: send, run, complete the transfers ----
    def _mirrored(self, name: str, payload: tuple, run):
        if self.is_root:
            self.mpi.send_command((name, payload, self.outcome))
        self.mpi.phase = name
        self.outcome = None
        try:
            return run()
        except RuntimeFailure as error:
            self.outcome = f"{type(error).__name__}: {error}"
            raise
        finally:
            self.mpi.wait()

    def malloc(self, nbytes: int) -> VirtualBuffer:
        return self._mirrored("malloc", (int(nbytes),), lambda: Runtime.malloc(self, nbytes))

    def free(self, pointer) -> None:
        addr = _address(pointer)
        return self._mirrored("free", (addr,), lambda: Runtime.free(self, addr))

    def memcpy_htod(self, dst, src, nbytes=None, distribute=None):
        src_addr, nbytes = host_span(src, nbytes) if self.is_root else (src, nbytes)
        payload = (_address(dst), src_addr, nbytes, distribute)
        return self._mirrored("memcpy_htod", payload, lambda: Runtime.memcpy_htod(self, *payload))

    def memcpy_dtoh(self, dst, src, nbytes=None):
        dst_addr, nbytes = host_span(dst, nbytes, writable=True) if self.is_root else (dst, nbytes)
        payload = (dst_addr, _address(src), nbytes)
        return self._mirrored("memcpy_dtoh", payload, lambda: Runtime.memcpy_dtoh(self, *payload))

    def memcpy_dtod(self, dst, src, nbytes: int):
        payload = (_address(dst), _address(src), nbytes)
        return self._mirrored("memcpy_dtod", payload, lambda: Runtime.memcpy_dtod(self, *payload))

    def memset(self, dst, value: int, nbytes: int) -> None:
        payload = (_address(dst), value, nbytes)
        return self._mirrored("memset", payload, lambda: Runtime.memset(self, *payload))

    def synchronize(self) -> None:
        return self._mirrored("synchronize", (), lambda: Runtime.synchronize(self))

    def load_module(self, source=None, path=None, name=None, instantiate=None, include_dirs=None,
                    flags=None):
        """Rank 0 compiles first (the other ranks of a node then find the kernels in the compile cache)
        and sends the source text and the program's kernel flags, so the other ranks need not see the
        file."""
        dirs = list(include_dirs or [])
        if path is not None:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
            dirs.append(os.path.dirname(os.path.abspath(path)))
            name = name or os.path.basename(path)
        payload = (source, name, list(instantiate or ()), [str(d) for d in dirs], list(flags or ()))
        module = Runtime.load_module(self, source=source, name=name, instantiate=payload[2],
                                     include_dirs=payload[3], flags=payload[4])
        if id(module) not in self._module_ids:
            self._module_ids[id(module)] = len(self._module_list)
            self._module_list.append(module)
            if self.is_root:
                self.mpi.send_command(("load_module", payload, self.outcome))
                self.outcome = None
        return module

    def copy_symbol(self, module, symbol: str, host: int, nbytes: int, offset: int, to_symbol: bool):
        """A write reaches every rank (each rank's devices hold their own copy of the variable): rank 0
        sends the bytes; a read takes device 0's copy, which is rank 0's."""
        if not to_symbol:
            return Runtime.copy_symbol(self, module, symbol, host, nbytes, offset, False)
        payload = (self._module_ids[id(module)], symbol, ctypes.string_at(host, nbytes), offset)
        return self._mirrored("copy_symbol", payload,
                              lambda: Runtime.copy_symbol(self, module, symbol, host, nbytes, offset, True))

    def launch(self, kernel, grid, block, args, shared: int = 0, access=None, partition: str = "auto"):
        args = [_address(a) for a in args]
        payload = (self._kernel_ref(kernel), grid, block, args, shared, self._access_ref(access), partition)
        return self._mirrored("launch", payload,
                              lambda: Runtime.launch(self, kernel, grid, block, args, shared, access, partition))

    def _kernel_ref(self, kernel) -> tuple[int, str]:
        found = self._kernel_refs.get(id(kernel))
        if found is None or found[0] is not kernel:
            index = next(k for k, m in enumerate(self._module_list) if m._handles.get(kernel.name) is kernel)
            found = self._kernel_refs[id(kernel)] = (kernel, index, kernel.name)
        return found[1], found[2]

    def _access_ref(self, access) -> int | None:
        """The access model's number; a model rank 0 has not used before is sent first."""
        if access is None:
            return None
        found = self._access_ids.get(id(access))
        if found is None or found[0] is not access:
            found = self._access_ids[id(access)] = (access, len(self._access_list))
            self._access_list.append(access)
            data = access.to_dict() if hasattr(access, "to_dict") else pickle.dumps(access)
            self.mpi.send_command(("access", (found[1], data), self.outcome))
        return found[1]

    # ---- the other ranks: run a command received from rank 0 ----
    def apply(self, name: str, payload: tuple) -> None:
        if name == "access":
            self._apply_access(*payload)
        elif name == "load_module":
            source, mod_name, instantiate, dirs, flags = payload
            self.load_module(source=source, name=mod_name, instantiate=instantiate, include_dirs=dirs,
                             flags=flags)
        elif name == "copy_symbol":
            index, symbol, data, offset = payload
            staging = ctypes.create_string_buffer(data, max(1, len(data)))
            module = self._module_list[index]
            self._mirrored(name, (), lambda: Runtime.copy_symbol(
                self, module, symbol, ctypes.addressof(staging), len(data), offset, True))
        elif name == "launch":
            (index, kname), grid, block, args, shared, access, partition = payload
            kernel = self._module_list[index][kname]
            model = None if access is None else self._access_list[access]
            self._mirrored(name, (), lambda: Runtime.launch(self, kernel, grid, block, args, shared, model,
                                                            partition))
        elif name in _PLAIN:
            self._mirrored(name, (), lambda: getattr(Runtime, name)(self, *payload))
        else:
            raise ConfigError(f"unknown command {name!r} from rank 0")

    def _apply_access(self, index: int, data) -> None:
        if isinstance(data, bytes):
            model = pickle.loads(data)
        else:
            from runtime.access import KernelAccess  # isl: only where a model is used
            model = KernelAccess.from_dict(data)
        assert index == len(self._access_list), "access models arrive in order"
        self._access_list.append(model)

    def extra_stats(self) -> dict:
        """What ``S2S_STATS`` adds under MPI (``session.stop`` fills ``ranks``)."""
        return {"mpi": {"ranks": self.mpi.size, "devices_per_rank": self.devices_per_rank,
                        "cuda_aware": self.cuda_aware, "per_rank": getattr(self, "rank_counters", [])}}


_PLAIN = ("malloc", "free", "memcpy_htod", "memcpy_dtoh", "memcpy_dtod", "memset", "synchronize")


def _check_views(views: list[tuple]) -> None:
    """Every rank must have started its devices, on one backend, with the same number of devices:
    the global device numbering (rank-major) and the partitioning assume it."""
    failed = [f"rank {r}: {v[3]}" for r, v in enumerate(views) if v[3] is not None]
    if failed:
        raise ConfigError("the runtime could not start on every rank: " + "; ".join(failed))
    kinds = {(v[0], v[1]) for v in views}
    if len(kinds) > 1:
        said = ", ".join(f"rank {r}: {v[1]} {v[0]} device(s)" for r, v in enumerate(views))
        raise ConfigError(f"the ranks have different devices ({said}); every rank needs the same "
                          "backend and device count (S2S_BACKEND, S2S_DEVICES, GPUs per node)")


def cuda_aware(backend: str) -> dict:
    """Whether the MPI library can send GPU memory itself (Open MPI's MPIX_Query_cuda_support); the
    runtime reports it and stages through host memory either way (docs/mpi.md)."""
    name = ctypes.util.find_library("mpi")
    try:
        query = getattr(ctypes.CDLL(name), "MPIX_Query_cuda_support", None) if name else None
    except OSError:
        query = None
    if query is None:
        return {"cuda_aware": None, "how": "no MPIX_Query_cuda_support in the MPI library", "used": False}
    supported = bool(query())
    return {"cuda_aware": supported, "how": "MPIX_Query_cuda_support", "used": False,
            "staging": "host" if backend != "cpu" else "none (cpu device memory is host memory)"}
