"""The cuda backend: one PyCUDA context and stream per GPU, kernels built with nvcc to cubin (cached).

PyCUDA is an optional extra (``pip install s2s[cuda]``); it is imported only when this backend is asked
for, and a missing PyCUDA or driver becomes BackendUnavailable (the cpu backend is then the default).

Kernels: the same preprocessed source as the cpu backend (host code blanked) is compiled by nvcc with a
prelude that redefines ``blockIdx`` and ``gridDim``: a partitioned launch runs grid ``hi - lo`` and the
kernel sees ``blockIdx + lo`` and the full grid, read from a ``__constant__`` array set on the device's
stream before each launch (so launches on one device stay ordered).  Template instantiations are forced
by taking their addresses; the symbol to look up is the mangled name the host compiler reports for the
same declaration (runtime/cpu/module.py, Itanium ABI on both sides).  Parameter layouts also come from the
host compiler.

All copies go to the device's stream (asynchronous); device-to-host copies synchronise before returning
because the host reads the result right away; peer copies use cuMemcpyPeerAsync, which works with or
without peer access enabled.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from runtime import cache_trust
from runtime.cpu.compiler import cache_dir, tool_output
from runtime.cpu.source import inline_included_sources, prepare, source_bytes
from runtime.errors import BackendUnavailable, CompileError, ConfigError, LaunchError, OutOfMemory

PRELUDE = r"""#include <cuda_runtime.h>
__constant__ unsigned int s2s_partition[6];          /* block offset xyz, full grid xyz */
static __device__ __forceinline__ uint3 s2s_block_index()
{ return make_uint3(blockIdx.x + s2s_partition[0], blockIdx.y + s2s_partition[1], blockIdx.z + s2s_partition[2]); }
static __device__ __forceinline__ dim3 s2s_grid_dim()
{ return dim3(s2s_partition[3], s2s_partition[4], s2s_partition[5]); }
#define blockIdx s2s_block_index()
#define gridDim s2s_grid_dim()
"""
FORMATS = {("pointer", 8): "P", ("signed", 1): "b", ("signed", 2): "h", ("signed", 4): "i",
           ("signed", 8): "q", ("unsigned", 1): "B", ("unsigned", 2): "H", ("unsigned", 4): "I",
           ("unsigned", 8): "Q", ("float", 4): "f", ("float", 8): "d"}


def driver():
    """pycuda.driver, initialised; BackendUnavailable when PyCUDA or the driver is missing."""
    try:
        drv = importlib.import_module("pycuda.driver")
        drv.init()
    except (ImportError, OSError) as err:
        raise BackendUnavailable(f"cuda backend: PyCUDA or the CUDA driver is not available ({err})") from err
    except Exception as err:        # pycuda.driver.Error: no driver, no device
        raise BackendUnavailable(f"cuda backend: {err}") from err
    return drv


def open_devices(count: int | None) -> list[CudaDevice]:
    """One runtime device per GPU; with ``S2S_CUDA_SHARE=1`` more devices than GPUs, placed round-robin
    (each its own context and memory, so a partitioned program can be checked on a machine with one GPU:
    copies between two contexts of one GPU go through cuMemcpyPeer like copies between two GPUs)."""
    drv = driver()
    available = drv.Device.count()
    if available == 0:
        raise BackendUnavailable("cuda backend: no GPU found")
    count = available if count is None else count
    share = os.environ.get("S2S_CUDA_SHARE", "0")
    if share not in ("0", "1"):
        raise ConfigError(f"S2S_CUDA_SHARE={share!r}: expected 0 or 1")
    if count > available and share != "1":
        raise ConfigError(f"{count} cuda devices requested, {available} present "
                          "(S2S_CUDA_SHARE=1 places several on one GPU)")
    return [CudaDevice(drv, i % available, i) for i in range(count)]


def build_cubin(text: str, name: str, instantiate: list[str], include_dirs: list, arch: str,
                flags: tuple[str, ...] = ()) -> bytes:
    """nvcc -cubin of the prelude + host-blanked source, cached by text, arch and nvcc version."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    version = tool_output(nvcc, "--version")
    forced = ", ".join(f"(void *)&{k}" for k in instantiate)
    unit = (PRELUDE + define_lines(flags) + f'#line 1 "{c_string(name)}"\n' + text
            + (f'\nvoid *s2s_instantiations[] = {{{forced}}};\n' if instantiate else "\n"))
    key = hashlib.sha256(source_bytes("\0".join([unit, arch, version, *map(str, include_dirs), *flags])
                                      )).hexdigest()[:32]
    target = cache_dir() / f"{key}-{arch}.cubin"
    if cache_trust.usable(target):
        return target.read_bytes()
    if not _SAFE_PATH.match(arch):
        raise CompileError(f"{name}: unusable GPU architecture {arch!r}", [nvcc], "")
    with tempfile.TemporaryDirectory(prefix="s2s-cubin-", dir=_safe_temp_root()) as work:
        source, out = os.path.join(work, "kernel.cu"), os.path.join(work, "kernel.cubin")
        Path(source).write_bytes(source_bytes(unit))
        includes = [_safe_dir(str(d), work, f"inc{k}") for k, d in enumerate(include_dirs)]
        user = [f for f in flags if f.startswith("-std=")]    # -D/-U are #define lines (no shell)
        user += [f"-I{_safe_dir(f[2:], work, f'user{k}')}" for k, f in enumerate(flags) if f.startswith("-I")]
        command = [nvcc, "-cubin", f"-arch={arch}", "-O3", "-std=c++17", *user, *[f"-I{d}" for d in includes],
                   source, "-o", out]
        proc = subprocess.run(command, capture_output=True, text=True, errors="replace",
                              env=dict(os.environ, TMPDIR=work))
        if proc.returncode != 0:
            raise CompileError(f"{name}: nvcc rejected the kernel source", command, proc.stderr)
        data = Path(out).read_bytes()
    fd, tmp = tempfile.mkstemp(suffix=".cubin", dir=cache_dir())
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    cache_trust.publish(tmp, target)
    return data


# nvcc runs cicc and ptxas through ``sh -c`` and does not escape backquotes (nor, after -Xcompiler,
# anything): every path given to it is made of these characters, or replaced by a symlink that is.
_SAFE_PATH = re.compile(r"[A-Za-z0-9_./+%:=@-]*\Z")


def _is_safe(path: str) -> bool:
    return bool(_SAFE_PATH.match(path)) and not path.startswith(("-", "=", "@"))


def _safe_temp_root() -> str:
    for candidate in (str(cache_dir()), tempfile.gettempdir(), "/tmp"):
        if _is_safe(candidate) and os.path.isdir(candidate):
            return candidate
    raise CompileError("no temporary directory whose path nvcc's shell reads literally", [], "")


def _safe_dir(directory: str, work: str, name: str) -> str:
    """``directory``, or a symlink to it named ``name`` in ``work`` when its path is not safe."""
    if _is_safe(directory):
        return directory
    link = os.path.join(work, name)
    os.symlink(os.path.abspath(directory), link)
    return link


def define_lines(flags) -> str:
    """``#define``/``#undef`` lines for the -D/-U of ``flags``: nvcc runs its tools through a
    shell, so macro values never go on its command line."""
    lines = []
    for flag in flags:
        if flag.startswith("-U"):
            lines.append(f"#undef {flag[2:]}\n")
        elif flag.startswith("-D"):
            name, eq, body = flag[2:].partition("=")
            lines.append(f"#define {name} {body if eq else '1'}\n")
    return "".join(lines)


def c_string(text: str) -> str:
    """``text`` inside a C string literal (a file name in ``#line``)."""
    return "".join({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}.get(ch, ch) for ch in text)


class CudaKernel:
    """A kernel function in one device's module, with the argument format of its parameters."""

    def __init__(self, function, params, constant):
        self.function, self.params, self.constant = function, params, constant
        fmt = "".join(FORMATS.get((p.kind, p.size), f"{p.size}s") for p in params)
        function.prepare(fmt)


class CudaModule:
    def __init__(self, device: CudaDevice, cubin: bytes, described):
        self.device, self.described = device, described
        with device.current():
            self.module = device.drv.module_from_buffer(cubin)
            self.constant = self.module.get_global("s2s_partition")[0]
        self._kernels: dict[str, CudaKernel] = {}

    def copy_symbol(self, symbol: str, host: int, nbytes: int, offset: int, to_symbol: bool) -> None:
        """Copy to or from this device's copy of the module's variable ``symbol``."""
        with self.device.current():
            try:
                addr, size = self.module.get_global(symbol)
            except self.device.drv.Error:
                raise LaunchError(f"no variable {symbol!r} in the kernels") from None
            if offset + nbytes > size:
                raise LaunchError(f"copy of {nbytes} bytes at offset {offset} overruns {symbol!r} ({size} bytes)")
        if to_symbol:
            self.device.upload(int(addr) + offset, host, nbytes)
        else:
            self.device.download(host, int(addr) + offset, nbytes)
        self.device.synchronize()

    def kernel(self, name: str) -> CudaKernel:
        if name not in self._kernels:
            described = self.described[name]
            with self.device.current():
                fn = self.module.get_function(described.symbol)
            self._kernels[name] = CudaKernel(fn, described.params, self.constant)
        return self._kernels[name]


class CudaDevice:
    """Runtime device ``index`` on GPU ``gpu_index``: a context (kept off the context stack between calls)
    and a stream."""

    backend = "cuda"

    def __init__(self, drv, gpu_index: int, index: int | None = None):
        self.drv, self.index = drv, gpu_index if index is None else index
        self.gpu = drv.Device(gpu_index)
        self.ctx = self.gpu.make_context()
        try:
            self.stream = drv.Stream()
        finally:
            drv.Context.pop()
        major, minor = self.gpu.compute_capability()
        self.arch = f"sm_{major}{minor}"
        self._allocations: dict[int, object] = {}

    @property
    def name(self) -> str:
        return f"gpu{self.index}"

    @contextlib.contextmanager
    def current(self):
        self.ctx.push()
        try:
            yield
        finally:
            self.drv.Context.pop()

    @staticmethod
    def _host(addr: int, nbytes: int):
        return (ctypes.c_char * nbytes).from_address(addr)

    def memory(self) -> int:
        """Bytes this GPU can hold (its total memory; the runtime's allocation limit)."""
        return int(self.gpu.total_memory())

    def alloc(self, nbytes: int) -> int:
        try:
            with self.current():
                allocation = self.drv.mem_alloc(max(nbytes, 1))
        except getattr(self.drv, "MemoryError", MemoryError) as error:   # a GPU full by now (pycuda's own)
            raise OutOfMemory(f"{self.name}: cannot allocate {nbytes} bytes: {error}") from error
        self._allocations[int(allocation)] = allocation
        return int(allocation)

    def free(self, addr: int) -> None:
        allocation = self._allocations.pop(addr)
        with self.current():
            allocation.free()

    def upload(self, addr: int, src_addr: int, nbytes: int) -> None:
        with self.current():
            self.drv.memcpy_htod_async(addr, self._host(src_addr, nbytes), self.stream)

    def download(self, dst_addr: int, addr: int, nbytes: int) -> None:
        with self.current():
            self.drv.memcpy_dtoh_async(self._host(dst_addr, nbytes), addr, self.stream)
            self.stream.synchronize()

    def copy_local(self, dst: int, src: int, nbytes: int) -> None:
        with self.current():
            self.drv.memcpy_dtod_async(dst, src, nbytes, self.stream)

    def copy_from_peer(self, dst: int, peer: CudaDevice, src: int, nbytes: int) -> None:
        with self.current():
            self.drv.memcpy_peer_async(dst, src, nbytes, dest_context=self.ctx, src_context=peer.ctx,
                                       stream=self.stream)

    def fill(self, addr: int, value: int, nbytes: int) -> None:
        with self.current():
            self.drv.memset_d8_async(addr, value, nbytes, self.stream)

    def load(self, text: str, name: str, instantiate, include_dirs, described, flags=()) -> CudaModule:
        source = prepare(inline_included_sources(text, name, [str(d) for d in include_dirs or []]),
                         name)
        cubin = build_cubin(source.device_text, name, list(instantiate or []), list(include_dirs or []),
                            self.arch, tuple(flags))
        return CudaModule(self, cubin, described)

    def launch(self, kernel: CudaKernel, grid, block, args, shared: int, box) -> None:
        lo, hi = box
        partition = (ctypes.c_uint32 * 6)(*lo, *grid)
        values = [a if p.kind != "struct" else bytes(a) for a, p in zip(args, kernel.params, strict=True)]
        with self.current():
            self.drv.memcpy_htod_async(kernel.constant, partition, self.stream)
            kernel.function.prepared_async_call(tuple(h - lo_ for lo_, h in zip(lo, hi, strict=True)),
                                                tuple(block), self.stream, *values, shared_size=shared)

    def synchronize(self) -> None:
        with self.current():
            self.stream.synchronize()


def nvcc_available() -> bool:
    return bool(shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists())
