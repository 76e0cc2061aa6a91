"""Load a compiled cpu-backend module and launch its kernels through ctypes.

Each kernel's parameter list comes from the C++ compiler itself (``s2s_kernel_params``: size, alignment,
kind, pointer-to-const), so template instantiations and typedefs need no parsing in Python.  Arguments
are marshalled into one buffer per parameter and passed as ``void **`` the way cuLaunchKernel takes them.
ctypes releases the GIL during the call, so other Python threads keep running while a kernel executes.
"""

from __future__ import annotations

import ctypes
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from runtime.cpu.compiler import compile_module
from runtime.cpu.source import inline_included_sources, inline_shared_headers, prepare
from runtime.errors import ConfigError, LaunchError

KIND_NAMES = {0: "pointer", 1: "signed", 2: "unsigned", 3: "float", 4: "struct"}
ERRORS = {
    1: "deadlock: the threads of a block wait at different barriers or warp operations (barrier divergence)",
    2: "__trap() was called",
    3: "a barrier or warp operation was reached in a kernel compiled as barrier-free",
    4: "could not allocate fiber stacks or block state",
    5: "dynamic shared memory request above 256 KiB",
}
INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}
FLOAT_CODES = {4: "f", 8: "d"}


class ParamDesc(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("align", ctypes.c_uint32), ("kind", ctypes.c_int32),
                ("const_target", ctypes.c_int32)]


class LaunchDesc(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3), ("lo", ctypes.c_uint32 * 3),
                ("hi", ctypes.c_uint32 * 3), ("dyn_shared", ctypes.c_uint64), ("threads", ctypes.c_int32)]


@dataclass(frozen=True)
class Param:
    """One kernel parameter as the compiler sees it."""
    size: int
    kind: str            # pointer / signed / unsigned / float / struct
    const_target: bool   # pointer to const: the kernel cannot write through it

    def pack(self, value) -> bytes:
        """Bytes of ``value`` in this parameter's representation."""
        if self.kind == "pointer":
            return struct.pack("<Q", int(value))
        if self.kind in ("signed", "unsigned"):
            code = INT_CODES[self.size]
            return struct.pack("<" + (code if self.kind == "signed" else code.upper()), int(value))
        if self.kind == "float":
            return struct.pack("<" + FLOAT_CODES[self.size], float(value))
        data = bytes(value)
        if len(data) != self.size:
            raise LaunchError(f"by-value argument of {len(data)} bytes for a parameter of {self.size} bytes")
        return data


def default_threads() -> int:
    env = os.environ.get("S2S_CPU_THREADS")
    if env:
        if not env.isdigit() or int(env) < 1:
            raise ConfigError(f"S2S_CPU_THREADS={env!r}: expected a positive integer")
        return int(env)
    return os.cpu_count() or 1


class Kernel:
    """One exported kernel of a loaded module."""

    def __init__(self, lib: ctypes.CDLL, index: int, name: str, fibers: bool, params: list[Param]):
        self._lib, self._index = lib, index
        self.name, self.fibers, self.params = name, fibers, tuple(params)
        self.symbol = name           # mangled name, filled in by Module
    def launch(self, grid, block, args, shared: int = 0, box=None, threads: int | None = None) -> None:
        """Run blocks ``box`` (default: the whole grid) of a ``grid`` x ``block`` launch with raw ``args``.

        Pointer arguments are plain addresses here; the multi-device layer translates virtual pointers.
        """
        grid, block = _dim3(grid), _dim3(block)
        if len(args) != len(self.params):
            raise LaunchError(f"{self.name}: {len(args)} arguments for {len(self.params)} parameters")
        if block[0] * block[1] * block[2] > 1024 or min(block) < 1 or min(grid) < 1:
            raise LaunchError(f"{self.name}: invalid configuration grid={grid} block={block}")
        lo, hi = box if box is not None else ((0, 0, 0), grid)
        lo, hi = _dim3(lo, 0), _dim3(hi, 1)
        if any(h > g or lo_ > h for lo_, h, g in zip(lo, hi, grid, strict=True)):
            raise LaunchError(f"{self.name}: block box {lo}..{hi} outside grid {grid}")
        if any(h == lo_ for lo_, h in zip(lo, hi, strict=True)):
            return
        buffers = [ctypes.create_string_buffer(p.pack(a), max(p.size, 8))
                   for p, a in zip(self.params, args, strict=True)]
        argv = (ctypes.c_void_p * max(1, len(buffers)))(*[ctypes.addressof(b) for b in buffers])
        desc = LaunchDesc(grid, block, lo, hi, shared, threads or default_threads())
        rc = self._lib.s2s_kernel_launch(self._index, ctypes.byref(desc), argv)
        if rc:
            raise LaunchError(f"{self.name}: {ERRORS.get(rc, f'error {rc}')}")


def _dim3(value, pad: int = 1) -> tuple[int, int, int]:
    """A 3-tuple from an int or a shorter sequence, missing dimensions set to ``pad``."""
    items = (int(value),) if isinstance(value, int) else tuple(int(v) for v in value)
    return (items + (pad, pad, pad))[:3]


class Module:
    """A compiled kernel file; ``module[name]`` is a Kernel."""

    def __init__(self, path: Path, exported: tuple[str, ...]):
        self.path = path
        self._lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
        lib = self._lib
        lib.s2s_kernel_name.restype = ctypes.c_char_p
        lib.s2s_kernel_symbol.restype = ctypes.c_char_p
        lib.s2s_kernel_launch.argtypes = [ctypes.c_int, ctypes.POINTER(LaunchDesc), ctypes.c_void_p]
        lib.s2s_kernel_params.argtypes = [ctypes.c_int, ctypes.POINTER(ParamDesc), ctypes.c_int]
        self.kernels: dict[str, Kernel] = {}
        for i in range(lib.s2s_kernel_count()):
            name = lib.s2s_kernel_name(i).decode()
            count = lib.s2s_kernel_params(i, None, 0)
            descs = (ParamDesc * max(1, count))()
            lib.s2s_kernel_params(i, descs, count)
            params = [Param(d.size, KIND_NAMES[d.kind], bool(d.const_target)) for d in descs[:count]]
            self.kernels[name] = Kernel(lib, i, name, bool(lib.s2s_kernel_fibers(i)), params)
            self.kernels[name].symbol = lib.s2s_kernel_symbol(i).decode()

    def __getitem__(self, name: str) -> Kernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise LaunchError(f"no kernel {name!r} in {self.path.name}; exported: "
                              f"{', '.join(self.kernels)}") from None

    def copy_symbol(self, symbol: str, host: int, nbytes: int, offset: int, to_symbol: bool) -> None:
        """Copy to or from the module's global ``symbol`` (a ``__constant__``/``__device__``
        variable at namespace scope: an unmangled name in the shared object)."""
        try:
            base = ctypes.addressof(ctypes.c_char.in_dll(self._lib, symbol))
        except ValueError:
            raise LaunchError(f"no variable {symbol!r} in the kernels of {self.path.name} (only "
                              "__constant__/__device__ variables of the global namespace can be "
                              "copied to or from)") from None
        size = self._symbol_size(symbol)
        if size is not None and offset + nbytes > size:
            raise LaunchError(f"copy of {nbytes} bytes at offset {offset} overruns {symbol!r} "
                              f"({size} bytes)")
        dst, src = (base + offset, host) if to_symbol else (host, base + offset)
        ctypes.memmove(dst, src, nbytes)

    def _symbol_size(self, symbol: str) -> int | None:
        """The variable's size from the dynamic symbol table (None when unknown)."""
        return symbol_sizes(self.path).get(symbol)

    def __contains__(self, name: str) -> bool:
        return name in self.kernels


def symbol_sizes(path: Path) -> dict[str, int]:
    """Sizes of the data objects a shared object defines, from its ELF dynamic symbol table."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:          # 64-bit ELF only; else unknown
        return {}
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + k * e_shentsize) for k in range(e_shnum)]
    sizes = {}
    for sh in sections:
        if sh[1] != 11:                                   # SHT_DYNSYM
            continue
        strtab = sections[sh[6]]
        for at in range(sh[4], sh[4] + sh[5], 24):
            st_name, st_info, _, _, _, st_size = struct.unpack_from("<IBBHQQ", data, at)
            if st_info & 0xF == 1:                        # STT_OBJECT
                start = strtab[4] + st_name
                name = data[start:data.index(b"\0", start)].decode(errors="replace")
                sizes[name] = st_size
    return sizes


_loaded: dict[Path, Module] = {}


def load(text: str, name: str = "kernels.cu", instantiate: list[str] | None = None,
         include_dirs: list | None = None, flags: tuple[str, ...] = ()) -> Module:
    """Preprocess, compile (cached) and load CUDA kernel source; the same object is loaded once per process.
    ``flags``: the program's own -D/-U/-I/-std (``compiler.kernel_flags``)."""
    text = inline_included_sources(text, name, [str(d) for d in include_dirs or []])
    text = inline_shared_headers(text, name, [str(d) for d in include_dirs or []])
    compiled = compile_module(prepare(text, name), instantiate, include_dirs, flags)
    if compiled.path not in _loaded:
        _loaded[compiled.path] = Module(compiled.path, compiled.exported)
    return _loaded[compiled.path]
