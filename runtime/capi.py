"""Python side of the C interface (runtime/include/s2s_runtime.h, runtime/csrc/s2s_runtime.c).

The C library calls these functions with plain integers: virtual device addresses, raw host addresses,
byte counts and the address of the ``void **args`` array of a launch.  One Runtime per process, created
on first use from the environment (S2S_BACKEND, S2S_DEVICES).  Exceptions propagate to C, which turns
them into a non-zero return code (``error_code``: the cudaError_t value real CUDA returns for the same
failure) and ``s2s_last_error()``.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import struct
from collections import Counter
from dataclasses import dataclass

from runtime.api import Runtime
from runtime.buffers import check_host_range, is_virtual
from runtime.cpu.source import source_text
from runtime.errors import (
    CUDA_MEMORY_ALLOCATION,
    CUDA_UNKNOWN,
    AddressError,
    ConfigError,
    LaunchError,
    MemcpyKindError,
    RuntimeFailure,
)


@functools.cache
def _access_class():
    """runtime.access.KernelAccess, imported when a program first sets a model on several devices:
    it imports islpy (about 0.2 s of start-up, docs/benchmarks.md) which a one-device run never
    uses; None where the access package cannot be imported."""
    try:
        from runtime.access import KernelAccess
    except ImportError:     # pragma: no cover - islpy missing
        return None
    return KernelAccess


@dataclass(frozen=True)
class OneDeviceModel:
    """What a launch on a single device reads of a kernel's access model (runtime/launch.py,
    ``partition_plan``: whether it is partitionable and why not, then the whole grid on device 0):
    kept from the model's dictionary without importing isl."""
    kernel: str
    params: tuple
    partitionable: bool
    reason: str | None

HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT = range(5)
UNPACK = {("signed", 1): "b", ("signed", 2): "h", ("signed", 4): "i", ("signed", 8): "q",
          ("unsigned", 1): "B", ("unsigned", 2): "H", ("unsigned", 4): "I", ("unsigned", 8): "Q",
          ("float", 4): "f", ("float", 8): "d"}

_state: dict = {"runtime": None, "modules": [], "access": {}}
#: how many times the program called each function of the C interface (S2S_STATS "calls")
_calls: Counter = Counter()
#: names of the counted calls of the C interface, by memcpy kind
_MEMCPY_CALL = {HOST_TO_HOST: "memcpy_h2h", HOST_TO_DEVICE: "memcpy_h2d", DEVICE_TO_HOST: "memcpy_d2h",
                DEVICE_TO_DEVICE: "memcpy_d2d"}


def error_code(error: BaseException) -> int:
    """The code the C function returns for ``error`` (called by s2s_runtime.c on every failure): the
    runtime's errors carry their cudaError_t value; a host allocation that failed is out of memory;
    anything else is cudaErrorUnknown."""
    if isinstance(error, RuntimeFailure):
        return error.cuda_error
    return CUDA_MEMORY_ALLOCATION if isinstance(error, MemoryError) else CUDA_UNKNOWN


def runtime() -> Runtime:
    if _state["runtime"] is None:
        # a program's copies wait for the launch that uses them (runtime/placement.py); S2S_DISTRIBUTE
        # chooses another distribution
        _state["runtime"] = Runtime(distribute=os.environ.get("S2S_DISTRIBUTE") or "launch")
    return _state["runtime"]


def mpi_start() -> int:
    """Hook for the C library's start under an MPI launcher (runtime/mpi/session.py): -2 no MPI job,
    -1 rank 0 (run the program on the job's runtime), else the exit code of a rank that served."""
    from runtime.mpi import session
    code = session.start()
    if code == session.ROOT:
        _state["runtime"] = session.runtime()
    return code


def mpi_stop() -> int:
    """Hook for the C library's exit on rank 0 of an MPI job: the other ranks stop, S2S_STATS is written
    with their counters, MPI is finalized."""
    from runtime.mpi import session
    return session.stop(write_stats)


def device_count() -> int:
    return runtime().device_count


#: cudaDeviceProp fields a GPU reports, as pycuda device attributes, in the order of
#: S2S_SET_DEVICE_PROP (runtime/include/s2s_device_prop.h); None: from elsewhere (see _gpu_value)
DEVICE_PROPERTIES = (
    ("totalGlobalMem", None), ("sharedMemPerBlock", "MAX_SHARED_MEMORY_PER_BLOCK"),
    ("regsPerBlock", "MAX_REGISTERS_PER_BLOCK"), ("warpSize", "WARP_SIZE"), ("memPitch", "MAX_PITCH"),
    ("maxThreadsPerBlock", "MAX_THREADS_PER_BLOCK"), ("maxThreadsDim[0]", "MAX_BLOCK_DIM_X"),
    ("maxThreadsDim[1]", "MAX_BLOCK_DIM_Y"), ("maxThreadsDim[2]", "MAX_BLOCK_DIM_Z"),
    ("maxGridSize[0]", "MAX_GRID_DIM_X"), ("maxGridSize[1]", "MAX_GRID_DIM_Y"),
    ("maxGridSize[2]", "MAX_GRID_DIM_Z"), ("totalConstMem", "TOTAL_CONSTANT_MEMORY"),
    ("major", None), ("minor", None), ("textureAlignment", "TEXTURE_ALIGNMENT"),
    ("multiProcessorCount", "MULTIPROCESSOR_COUNT"),
    ("maxThreadsPerMultiProcessor", "MAX_THREADS_PER_MULTIPROCESSOR"),
    ("sharedMemPerMultiprocessor", "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"),
    ("regsPerMultiprocessor", "MAX_REGISTERS_PER_MULTIPROCESSOR"), ("l2CacheSize", "L2_CACHE_SIZE"),
    ("memoryBusWidth", "GLOBAL_MEMORY_BUS_WIDTH"), ("concurrentKernels", "CONCURRENT_KERNELS"),
    ("unifiedAddressing", "UNIFIED_ADDRESSING"))


def gpu_properties(device) -> tuple[str, list[int]] | None:
    """The name and DEVICE_PROPERTIES values of a cuda-backend device's GPU; None for a cpu device
    (which reports the documented fixed values of s2s_device_prop.h)."""
    gpu = getattr(device, "gpu", None)
    if getattr(device, "backend", None) != "cuda" or gpu is None:
        return None
    attributes = device.drv.device_attribute
    major, minor = gpu.compute_capability()
    fixed = {"totalGlobalMem": int(gpu.total_memory()), "major": major, "minor": minor}
    values = [fixed[field] if attribute is None else int(gpu.get_attribute(getattr(attributes, attribute)))
              for field, attribute in DEVICE_PROPERTIES]
    return str(gpu.name()), values


def device_properties(name_addr: int, name_len: int, values_addr: int, count: int) -> int:
    """cudaGetDeviceProperties on the runtime's first device: 1 after writing the GPU's own name and
    values, 0 on cpu devices (nothing written)."""
    found = gpu_properties(runtime().devices[0])
    if found is None:
        return 0
    if count != len(DEVICE_PROPERTIES):
        raise ConfigError(f"s2s_device_prop.h has {count} device properties, the runtime "
                          f"{len(DEVICE_PROPERTIES)}: header and runtime of different versions")
    name, values = found
    encoded = name.encode()[:max(name_len - 1, 0)] + b"\0"
    ctypes.memmove(name_addr, encoded, min(len(encoded), name_len))
    (ctypes.c_longlong * count).from_address(values_addr)[:] = values
    return 1


def malloc(nbytes: int) -> int:
    _calls["malloc"] += 1
    return runtime().malloc(nbytes).addr


def free(addr: int) -> int:
    """cudaFree: freeing NULL does nothing (``cudaFree(0)`` is a common way to start CUDA); a second free
    or a pointer that is not an allocation's start is an error."""
    _calls["free"] += 1
    if addr:
        runtime().free(addr)
    return 0


def _memcpy_kind(dst: int, src: int, kind: int) -> int:
    """The explicit kind of a copy: cudaMemcpyDefault decided by the addresses (a device pointer is one in
    the runtime's virtual range, live or not, so a freed one is reported, not read as host memory)."""
    if kind == DEFAULT:
        return {(False, False): HOST_TO_HOST, (False, True): HOST_TO_DEVICE, (True, False): DEVICE_TO_HOST,
                (True, True): DEVICE_TO_DEVICE}[(is_virtual(src), is_virtual(dst))]
    if kind not in _MEMCPY_CALL:
        raise MemcpyKindError(f"memcpy kind {kind} is not a cudaMemcpyKind")
    return kind


def memcpy(dst: int, src: int, nbytes: int, kind: int) -> int:
    rt = runtime()
    kind = _memcpy_kind(dst, src, kind)
    _calls[_MEMCPY_CALL[kind]] += 1
    if kind == HOST_TO_DEVICE:
        rt.memcpy_htod(dst, src, nbytes)
    elif kind == DEVICE_TO_HOST:
        rt.memcpy_dtoh(dst, src, nbytes)
    elif kind == DEVICE_TO_DEVICE:
        rt.memcpy_dtod(dst, src, nbytes)
    else:
        check_host_range(dst, nbytes)
        check_host_range(src, nbytes)
        ctypes.memmove(dst, src, nbytes)
    return 0


def memset(addr: int, value: int, nbytes: int) -> int:
    _calls["memset"] += 1
    runtime().memset(addr, value, nbytes)
    return 0


def memcpy_symbol(handle: int, symbol: str, addr: int, nbytes: int, offset: int, to_symbol: int) -> int:
    """cudaMemcpyToSymbol / FromSymbol: ``addr`` is host memory or a runtime (virtual) pointer;
    the symbol is a ``__constant__``/``__device__`` variable of the module's kernels."""
    _calls["memcpy_to_symbol" if to_symbol else "memcpy_from_symbol"] += 1
    rt, module = runtime(), _module(handle)
    staging = ctypes.create_string_buffer(max(1, nbytes))
    host = addr
    if is_virtual(addr):
        host = ctypes.addressof(staging)
        if to_symbol:
            rt.memcpy_dtoh(host, addr, nbytes)
    else:
        check_host_range(addr, nbytes)
    rt.synchronize()
    rt.copy_symbol(module, symbol, host, nbytes, offset, bool(to_symbol))
    if is_virtual(addr) and not to_symbol:
        rt.memcpy_htod(addr, host, nbytes)
    return 0


def synchronize() -> int:
    runtime().synchronize()
    return 0


def device_reset() -> int:
    """cudaDeviceReset: as on a GPU, the device's allocations are gone afterwards."""
    _calls["device_reset"] += 1
    runtime().reset()
    return 0


def _register(module) -> int:
    _state["modules"].append(module)
    return len(_state["modules"]) - 1


def _instantiations(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(";") if part.strip()]


def module_load(path: str, instantiate: str | None) -> int:
    return _register(runtime().load_module(path=path, instantiate=_instantiations(instantiate)))


def module_load_source(name: str, source: bytes | str, instantiate: str | None, include_dirs: str | None = None,
                       flags: str | None = None) -> int:
    """The C side hands the source over as bytes: a byte that is not UTF-8 (in a comment, a string
    literal) is legal for the compilers and must reach them unchanged (``source_text``)."""
    source = source_text(source) if isinstance(source, bytes) else source
    dirs = [d for d in (include_dirs or "").split(":") if d]
    return _register(runtime().load_module(source=source, name=name, instantiate=_instantiations(instantiate),
                                           include_dirs=dirs, flags=[f for f in (flags or "").split("\n") if f]))


def set_access(handle: int, kernel: str, access_json: str) -> int:
    """The kernel's access model and/or (``held_pointers``) where its by-value arguments hold
    device pointers; a JSON object with only ``held_pointers`` sets no access model."""
    data = json.loads(access_json)
    if "held_pointers" in data:
        _set_held(_module(handle)[kernel], data.pop("held_pointers"))
        if not data:
            return 0
    if runtime().device_count == 1 and {"kernel", "params", "partitionable"} <= data.keys():
        access = OneDeviceModel(data["kernel"], tuple(data["params"]), bool(data["partitionable"]),
                                data.get("reason"))
    else:
        kernel_access = _access_class()
        if kernel_access is None:
            raise ConfigError("s2s_set_access: the access-model package (runtime.access) cannot be "
                              "imported (is islpy installed?)")
        access = kernel_access.from_dict(data)
    k = _module(handle)[kernel]
    if len(access.params) != len(k.params):
        raise ConfigError(f"s2s_set_access: the model of {access.kernel} has {len(access.params)} parameters, "
                          f"kernel {kernel} has {len(k.params)}")
    _state["access"][(handle, kernel)] = access
    return 0


def _set_held(kernel, held: dict) -> None:
    """``{"index": [byte offsets]}``: each offset must leave room for a pointer inside a by-value
    (struct) parameter of the kernel, or nothing is set (ConfigError)."""
    table = {}
    for index, offsets in dict(held).items():
        i = int(index)
        if not 0 <= i < len(kernel.params) or kernel.params[i].kind != "struct":
            raise ConfigError(f"s2s_set_access: parameter {index} of {kernel.name} is not passed "
                              "by value as a struct")
        size = kernel.params[i].size
        if any(not 0 <= int(o) <= size - 8 for o in offsets):
            raise ConfigError(f"s2s_set_access: pointer offsets {offsets} outside parameter "
                              f"{index} of {kernel.name} ({size} bytes)")
        table[i] = tuple(int(o) for o in offsets)
    kernel.held = table


def _module(handle: int):
    modules = _state["modules"]
    if not 0 <= handle < len(modules):
        raise LaunchError(f"no module with handle {handle}")
    return modules[handle]


_CTYPES = {("pointer", 8): ctypes.c_uint64, ("signed", 1): ctypes.c_int8, ("signed", 2): ctypes.c_int16,
           ("signed", 4): ctypes.c_int32, ("signed", 8): ctypes.c_int64, ("unsigned", 1): ctypes.c_uint8,
           ("unsigned", 2): ctypes.c_uint16, ("unsigned", 4): ctypes.c_uint32, ("unsigned", 8): ctypes.c_uint64,
           ("float", 4): ctypes.c_float, ("float", 8): ctypes.c_double}
#: id(params) -> (params, the ctypes type reading each argument or None): made once per kernel
_DECODERS: dict[int, tuple] = {}


def _read_arg(p, addr: int):
    """One argument the general way (structs as raw bytes; other layouts through ``UNPACK``)."""
    raw = ctypes.string_at(addr, p.size)
    if p.kind == "pointer":
        return int.from_bytes(raw, "little")
    if p.kind == "struct":
        return raw
    return struct.unpack("<" + UNPACK[(p.kind, p.size)], raw)[0]


def _read_args(params, argv_addr: int) -> list:
    """Values of a cudaLaunchKernel-style ``void **args`` array, decoded by the parameter layout.

    Runs at every launch from C, so the decoding is prepared once per kernel: the argument addresses
    come out of the array in one slice and each scalar or pointer is read through its ctypes type
    (about 3x faster than a ``string_at`` and ``struct.unpack`` per argument)."""
    if not params:
        return []
    if not argv_addr:
        raise AddressError(f"args is NULL, but the kernel takes {len(params)} argument(s)")
    found = _DECODERS.get(id(params))
    if found is None or found[0] is not params:
        found = _DECODERS[id(params)] = (params, [_CTYPES.get((p.kind, p.size)) for p in params])
    addrs = (ctypes.c_void_p * len(params)).from_address(argv_addr)[:]
    if None in addrs:  # ctypes reads a NULL void * as None
        raise AddressError(f"args[{addrs.index(None)}] is NULL")
    return [kind.from_address(addr).value if kind is not None else _read_arg(p, addr)
            for p, kind, addr in zip(params, found[1], addrs, strict=True)]


def launch(handle: int, kernel: str, grid, block, shared: int, argv_addr: int) -> int:
    k = _module(handle)[kernel]
    _calls["launch"] += 1
    runtime().launch(k, grid, block, _read_args(k.params, argv_addr), shared, _state["access"].get((handle, kernel)))
    return 0


def _links(stats) -> dict[str, int]:
    return {f"{a}->{b}": n for (a, b), n in sorted(stats.link_bytes.items())}


def write_stats() -> int:
    """Write the statistics to $S2S_STATS (called by the C library when the program exits)."""
    path = os.environ.get("S2S_STATS")
    rt = _state["runtime"]
    if not path or rt is None:
        return 0
    launches = [{"kernel": s.kernel, "partitioned": s.partitioned, "reason": s.reason, "boxes": len(s.boxes),
                 "links": _links(s.transfers), "bookkeeping_s": s.bookkeeping_s, "kernel_s": s.kernel_s,
                 "replayed": s.replayed}
                for s in rt.launches]
    data = {"backend": rt.backend, "devices": rt.device_count, "launches": launches,
            "memcpy_links": _links(rt.copy_stats), "calls": dict(sorted(_calls.items())),
            **getattr(rt, "extra_stats", dict)()}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return 0
