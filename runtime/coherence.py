"""Bringing device instances up to date: plan the copies a set of read ranges needs, coalesce, execute.

Planning looks at the trackers as they are *before* any of the planned copies, so a copy never reads
from an instance that is itself still waiting for its data; the trackers learn the new shared copies only
after the copies are issued.  Copies are coalesced per (buffer, source, destination): adjacent or
overlapping pieces become one copy, which is what makes a stencil's halo one copy per neighbour rather
than one per row.

Source choice: another device holding the bytes (peer link) before the host copy; among devices, the
next ones after the destination first, which spreads the load of a broadcast over the holders.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

from runtime.buffers import HOST, VirtualBuffer, device_bit


@dataclass(frozen=True)
class Copy:
    """Bytes [lo, hi) of ``buffer`` from location ``src`` to location ``dst`` (0 host, d+1 device d)."""
    buffer: VirtualBuffer
    src: int
    dst: int
    lo: int
    hi: int


@dataclass
class TransferStats:
    """What a group of copies moved: bytes per (source, destination) link and the number of copies."""
    link_bytes: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    copies: int = 0
    seconds: float = 0.0

    @property
    def total_bytes(self) -> int:
        return sum(self.link_bytes.values())

    def merge(self, other: TransferStats) -> None:
        for link, nbytes in other.link_bytes.items():
            self.link_bytes[link] += nbytes
        self.copies += other.copies
        self.seconds += other.seconds


def location_name(devices: list, location: int) -> str:
    return "host" if location == HOST else devices[location - 1].name


def choose_source(mask: int, dst_device: int, ndevices: int) -> int:
    for step in range(1, ndevices):
        d = (dst_device + step) % ndevices
        if mask & device_bit(d):
            return d + 1
    if mask & 1:
        return HOST
    raise AssertionError(f"no holder in mask {mask:#b}")


def plan_fetches(needs, ndevices: int) -> list[Copy]:
    """Coalesced copies so that each (device, buffer, lo, hi) in ``needs`` is held by that device."""
    pieces = []
    for device, buf, lo, hi in needs:
        for a, b, mask in buf.tracker.missing(lo, hi, device_bit(device)):
            pieces.append((buf.addr, choose_source(mask, device, ndevices), device + 1, a, b, buf))
    pieces.sort(key=lambda p: p[:4])
    copies: list[Copy] = []
    for key0, src, dst, a, b, buf in pieces:
        last = copies[-1] if copies else None
        if last and last.buffer.addr == key0 and last.src == src and last.dst == dst and a <= last.hi:
            copies[-1] = Copy(buf, src, dst, last.lo, max(last.hi, b))
        else:
            copies.append(Copy(buf, src, dst, a, b))
    return copies


def execute(copies: list[Copy], devices: list, record: bool = True) -> TransferStats:
    """Issue the copies (asynchronously where the backend can) and record the new shared holders (unless
    ``record`` is false: the caller sets the trackers' whole state afterwards, runtime/launch.py)."""
    stats = TransferStats()
    start = time.perf_counter()
    for source in {c.src for c in copies if c.src != HOST}:
        devices[source - 1].synchronize()          # a peer's pending kernels produce what it sends
    for c in copies:
        n = c.hi - c.lo
        dst_dev = devices[c.dst - 1]
        dst_addr = c.buffer.instance(c.dst - 1) + c.lo
        if c.src == HOST:
            dst_dev.upload(dst_addr, c.buffer.host().ctypes.data + c.lo, n)
        else:
            src_dev = devices[c.src - 1]
            dst_dev.copy_from_peer(dst_addr, src_dev, c.buffer.instance(c.src - 1) + c.lo, n)
        stats.link_bytes[(location_name(devices, c.src), dst_dev.name)] += n
        stats.copies += 1
    if record:
        for c in copies:
            c.buffer.tracker.add(c.lo, c.hi, 1 << c.dst)
    stats.seconds = time.perf_counter() - start
    return stats
