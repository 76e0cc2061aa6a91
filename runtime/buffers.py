"""Virtual buffers and the virtual address space that names them.

A rewritten program keeps using its device pointers as numbers (pointer arithmetic such as
``d_in + offset`` included), so each virtual buffer owns a range of a virtual address space that maps to
no memory; the runtime turns an address into (buffer, offset) with one binary search and then into a real
address on whichever device needs it.  A virtual buffer is: that address range, a host copy (allocated
only when used as a staging location), one instance per device (allocated on first use) and a segment
tracker over its bytes.

Limits (docs/runtime.md, "Memory errors"): the live buffers together must fit one device (an allocation
beyond that is ``OutOfMemory``), and the virtual range is 3 TiB, never reused, so that no address can
overflow 64 bits or run into the program's own memory.

Location numbering of the tracker masks: bit 0 is the host copy, bit d+1 is device d.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from runtime.errors import AddressError, OutOfMemory
from runtime.tracker import SegmentTracker

HOST = 0
VIRTUAL_BASE = 0x5200_0000_0000     # an address range no real allocation uses on x86-64 Linux:
VIRTUAL_END = 0x5500_0000_0000      # 3 TiB, ending below where Linux maps PIE programs and their heap
VIRTUAL_GAP = 1 << 20               # unmapped space between buffers catches small overruns


def device_bit(device: int) -> int:
    return 1 << (device + 1)


class VirtualBuffer:
    """One allocation spread over the host and several devices."""

    def __init__(self, addr: int, nbytes: int, devices: list):
        self.addr, self.nbytes = addr, nbytes
        self.devices = devices
        everyone = (1 << (len(devices) + 1)) - 1     # uninitialised bytes: every copy is as good
        self.tracker = SegmentTracker(nbytes, everyone)
        self.instances: dict[int, int] = {}
        self._host: np.ndarray | None = None
        self.freed = False

    def __repr__(self) -> str:
        return f"VirtualBuffer({self.addr:#x}, {self.nbytes} bytes, {len(self.tracker)} segments)"

    def __add__(self, offset: int) -> DevicePointer:
        return DevicePointer(self, int(offset))

    def instance(self, device: int) -> int:
        """Real address of this buffer on ``device`` (allocated on first use)."""
        addr = self.instances.get(device)
        if addr is None:
            addr = self.devices[device].alloc(max(self.nbytes, 1))
            self.instances[device] = addr
        return addr

    def host(self) -> np.ndarray:
        if self._host is None:
            self._host = np.empty(self.nbytes, dtype=np.uint8)
        return self._host

    def release(self) -> None:
        for device, addr in self.instances.items():
            self.devices[device].free(addr)
        self.instances.clear()
        self._host = None
        self.freed = True


@dataclass(frozen=True)
class DevicePointer:
    """A position inside a virtual buffer (what ``d_ptr + k`` means in a host program)."""
    buffer: VirtualBuffer
    offset: int

    def __add__(self, offset: int) -> DevicePointer:
        return DevicePointer(self.buffer, self.offset + int(offset))

    @property
    def addr(self) -> int:
        return self.buffer.addr + self.offset


class AddressSpace:
    """Hands out virtual address ranges and resolves addresses back to buffers.

    Every allocation ever made is remembered as (start, size) in two append-only arrays (16 bytes each;
    starts only grow, so they stay sorted): an address is resolved with one binary search, and one in a
    freed allocation is reported as a use after free rather than as an unknown address.  Live buffers
    are a dict by start, so a free is O(1).
    """

    def __init__(self, capacity: int | None = None):
        self._starts = array("Q")
        self._sizes = array("Q")
        self._live: dict[int, VirtualBuffer] = {}
        self._next = VIRTUAL_BASE
        #: bytes the live allocations may hold together (one device's memory); None: no limit
        self.capacity = capacity
        self.live_bytes = 0
        #: Bumped by every free: what an address resolved to before stays valid until then (addresses
        #: are never reused), so launches cache their resolved pointers per generation.
        self.generation = 0

    def allocate(self, nbytes: int, devices: list) -> VirtualBuffer:
        """A new buffer, or OutOfMemory (nothing changed) when the devices or the address space are full."""
        if nbytes < 0:
            raise AddressError(f"allocation of {nbytes} bytes")
        self._check_capacity(nbytes)
        span = _span(nbytes)
        if span > VIRTUAL_END - self._next:
            raise OutOfMemory(f"cannot allocate {nbytes} bytes: the runtime's virtual address space "
                              f"({VIRTUAL_END - VIRTUAL_BASE} bytes, addresses never reused) has "
                              f"{VIRTUAL_END - self._next} bytes left")
        buf = VirtualBuffer(self._next, nbytes, devices)
        self._next += span
        self._starts.append(buf.addr)
        self._sizes.append(nbytes)
        self._live[buf.addr] = buf
        self.live_bytes += nbytes
        return buf

    def _check_capacity(self, nbytes: int) -> None:
        """Every live buffer may get an instance on every device, so together they must fit one device
        (what cudaMalloc checks on a single GPU)."""
        if self.capacity is not None and nbytes > self.capacity - self.live_bytes:
            raise OutOfMemory(f"cannot allocate {nbytes} bytes: {self.live_bytes} of the {self.capacity} "
                              f"bytes of device memory are in use")

    def live_buffers(self) -> list[VirtualBuffer]:
        """The allocations not freed, oldest first."""
        return list(self._live.values())

    def remove(self, buf: VirtualBuffer) -> None:
        if self._live.get(buf.addr) is not buf:
            raise AddressError(f"free of {buf.addr:#x}, which is not a live allocation")
        del self._live[buf.addr]
        self.live_bytes -= buf.nbytes
        self.generation += 1

    def resolve(self, pointer, nbytes: int = 0) -> DevicePointer:
        """(buffer, offset) for a VirtualBuffer, DevicePointer or integer virtual address.

        ``nbytes`` bytes from there must lie inside the buffer (the end may equal the buffer's end).
        """
        if isinstance(pointer, VirtualBuffer):
            ptr = DevicePointer(pointer, 0)
        elif isinstance(pointer, DevicePointer):
            ptr = pointer
        else:
            ptr = self._lookup(int(pointer))
        if ptr.buffer.freed:
            raise AddressError(f"use of freed allocation {ptr.buffer.addr:#x} (use after free)")
        if not 0 <= ptr.offset <= ptr.offset + nbytes <= ptr.buffer.nbytes:
            raise AddressError(f"{nbytes} bytes at offset {ptr.offset} run past the end of a "
                               f"{ptr.buffer.nbytes}-byte allocation")
        return ptr

    def _lookup(self, addr: int) -> DevicePointer:
        """The live buffer an address points into (its end included); says "freed" for a freed one."""
        k = bisect_right(self._starts, addr) - 1 if addr >= 0 else -1
        if k < 0 or addr > self._starts[k] + self._sizes[k]:
            raise AddressError(f"address {addr:#x} belongs to no device allocation")
        buf = self._live.get(self._starts[k])
        if buf is None:
            raise AddressError(f"address {addr:#x} is in the freed allocation {self._starts[k]:#x} "
                               f"(use after free)")
        return DevicePointer(buf, addr - buf.addr)


def _span(nbytes: int) -> int:
    """Address range an allocation takes: its bytes rounded to 256 (cudaMalloc's alignment), and a gap."""
    return (max(nbytes, 1) + 255) // 256 * 256 + VIRTUAL_GAP


def is_virtual(addr: int) -> bool:
    """Whether an address lies in the range device pointers are handed out from (never host memory)."""
    return VIRTUAL_BASE <= addr < VIRTUAL_END


def check_host_range(addr: int, nbytes: int) -> None:
    """Host memory the runtime will read or write with memmove: a non-negative count, no wrap past
    2^64, and nothing of the device pointers' virtual range (dereferencing one would crash)."""
    if addr == 0 and nbytes > 0:
        raise AddressError(f"the host pointer of a copy of {nbytes} bytes is NULL")
    if nbytes < 0 or addr < 0 or addr + nbytes > 1 << 64:
        raise AddressError(f"{nbytes} bytes of host memory at {addr:#x} wrap around the address space")
    if addr < VIRTUAL_END and addr + max(nbytes, 1) > VIRTUAL_BASE:
        raise AddressError(f"host memory expected, got the device address range {addr:#x}+{nbytes}")
