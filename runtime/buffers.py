"""Virtual buffers and the virtual address space that names them.

A rewritten program keeps using its device pointers as numbers (pointer arithmetic such as
``d_in + offset`` included), so each virtual buffer owns a range of a virtual address space that maps to
no memory; the runtime turns an address into (buffer, offset) with one binary search and then into a real
address on whichever device needs it.  A virtual buffer is: that address range, a host copy (allocated
only when used as a staging location), one instance per device (allocated on first use) and a segment
tracker over its bytes.

Location numbering of the tracker masks: bit 0 is the host copy, bit d+1 is device d.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from runtime.errors import AddressError
from runtime.tracker import SegmentTracker

HOST = 0
VIRTUAL_BASE = 0x5200_0000_0000     # an address range no real allocation uses on x86-64 Linux
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
    """Hands out virtual address ranges and resolves addresses back to buffers."""

    def __init__(self):
        self._bases: list[int] = []
        self._buffers: list[VirtualBuffer] = []
        self._next = VIRTUAL_BASE
        #: Bumped by every free: what an address resolved to before stays valid until then (addresses
        #: are never reused), so launches cache their resolved pointers per generation.
        self.generation = 0

    def allocate(self, nbytes: int, devices: list) -> VirtualBuffer:
        if nbytes < 0:
            raise AddressError(f"allocation of {nbytes} bytes")
        buf = VirtualBuffer(self._next, nbytes, devices)
        self._next += (max(nbytes, 1) + 255) // 256 * 256 + VIRTUAL_GAP
        self._bases.append(buf.addr)
        self._buffers.append(buf)
        return buf

    def remove(self, buf: VirtualBuffer) -> None:
        k = bisect_right(self._bases, buf.addr) - 1
        if k < 0 or self._buffers[k] is not buf:
            raise AddressError(f"free of {buf.addr:#x}, which is not a live allocation")
        del self._bases[k], self._buffers[k]
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
            addr = int(pointer)
            k = bisect_right(self._bases, addr) - 1
            if k < 0 or addr > self._bases[k] + self._buffers[k].nbytes:
                raise AddressError(f"address {addr:#x} belongs to no device allocation")
            ptr = DevicePointer(self._buffers[k], addr - self._bases[k])
        if ptr.buffer.freed:
            raise AddressError(f"use of freed allocation {ptr.buffer.addr:#x}")
        if not 0 <= ptr.offset <= ptr.offset + nbytes <= ptr.buffer.nbytes:
            raise AddressError(f"{nbytes} bytes at offset {ptr.offset} run past the end of a "
                               f"{ptr.buffer.nbytes}-byte allocation")
        return ptr
