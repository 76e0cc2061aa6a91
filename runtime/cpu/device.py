"""An emulated device: its own memory (host allocations nobody else writes) and the SIMT emulator.

Every device memory operation goes through this class so that the multi-device layer is the same for
both backends (runtime/cuda/device.py has the same methods).  Copies are ``ctypes.memmove``: one C call,
GIL released.  Allocations are 256-byte aligned like cudaMalloc's.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

from runtime.cpu import module as cpu_module
from runtime.errors import AddressError

ALIGN = 256


class CpuDevice:
    """Device ``index`` of the cpu backend."""

    backend = "cpu"

    def __init__(self, index: int, threads: int | None = None):
        self.index = index
        self.threads = threads
        self._blocks: dict[int, np.ndarray] = {}

    @property
    def name(self) -> str:
        return f"cpu{self.index}"

    def memory(self) -> int:
        """Bytes this device can hold: the host's physical memory, which every emulated device shares
        (instances are committed lazily, page by page, as they are written)."""
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")

    def alloc(self, nbytes: int) -> int:
        block = np.empty(nbytes + ALIGN, dtype=np.uint8)
        base = block.ctypes.data
        addr = (base + ALIGN - 1) // ALIGN * ALIGN
        self._blocks[addr] = block
        return addr

    def free(self, addr: int) -> None:
        if self._blocks.pop(addr, None) is None:
            raise AddressError(f"{self.name}: free of {addr:#x}, which is not an allocation")

    def upload(self, addr: int, src_addr: int, nbytes: int) -> None:
        """Host memory at ``src_addr`` -> device memory at ``addr``."""
        ctypes.memmove(addr, src_addr, nbytes)

    def download(self, dst_addr: int, addr: int, nbytes: int) -> None:
        ctypes.memmove(dst_addr, addr, nbytes)

    def copy_local(self, dst: int, src: int, nbytes: int) -> None:
        ctypes.memmove(dst, src, nbytes)

    def copy_from_peer(self, dst: int, peer: CpuDevice, src: int, nbytes: int) -> None:
        ctypes.memmove(dst, src, nbytes)

    def fill(self, addr: int, value: int, nbytes: int) -> None:
        ctypes.memset(addr, value, nbytes)

    def load(self, text: str, name: str, instantiate: list[str] | None, include_dirs: list | None,
             flags: tuple[str, ...] = ()):
        """The emulator module for a kernel source (compiled once per process and shared by all devices)."""
        return cpu_module.load(text, name, instantiate, include_dirs, flags)

    def launch(self, kernel, grid, block, args, shared: int, box) -> None:
        kernel.launch(grid, block, args, shared, box, self.threads)

    def synchronize(self) -> None:
        """Emulated work is synchronous."""
