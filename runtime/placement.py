"""Where a host-to-device copy lands: decided by the first launch that uses the buffer (``launch`` mode).

With the ``linear`` distribution a ``cudaMemcpy`` host-to-device splits the bytes over the devices at
once. That is right for a kernel that is then split the same way, and wrong for one that runs whole on
one device (atomics, an unknown access model): it must then fetch from the other devices the part the
copy put there (issue 18 item 6: a 200 kB histogram input moved 100,672 bytes between 2 devices).

In ``launch`` mode the copy is staged in the buffer's host memory and remembered as *pending*; the
next launch that takes the buffer places it: linearly over the devices (exactly as ``linear`` would
have, same bytes from the host) when the launch is split over several devices, whole on the one
device that runs it otherwise. Operations that read or write the buffer in place of a launch
(a device-to-device copy, a ``memset`` in another mode) place it linearly first. A ``cudaMemset`` in
``launch`` mode is pending the same way (the host memory is filled, and the chosen devices fill their
part when a launch places it: no bytes move). A copy to the host of a pending range reads the staged
bytes (the host holds them).
"""

from __future__ import annotations

from runtime.buffers import HOST, VirtualBuffer, device_bit
from runtime.coherence import TransferStats


class PendingCopies:
    """Staged host-to-device ranges per buffer, not yet on any device."""

    def __init__(self):
        #: buffer -> [(lo, hi, fill byte or None for a copy)]
        self._ranges: dict[VirtualBuffer, list[tuple[int, int, int | None]]] = {}

    def __bool__(self) -> bool:
        return bool(self._ranges)

    def add(self, buffer: VirtualBuffer, lo: int, hi: int, fill: int | None = None) -> None:
        self._ranges.setdefault(buffer, []).append((lo, hi, fill))

    def drop(self, buffer: VirtualBuffer) -> None:
        self._ranges.pop(buffer, None)

    def has(self, buffer: VirtualBuffer) -> bool:
        return buffer in self._ranges

    def place(self, buffer: VirtualBuffer, devices: list, device: int | None, cuts,
              stats: TransferStats) -> None:
        """Upload ``buffer``'s pending ranges from its host memory: all to ``device``, or (None) each
        range cut linearly over ``devices`` by ``cuts(nbytes, parts)``. The devices become the only
        holders, as after a ``linear`` copy."""
        ranges = self._ranges.pop(buffer, ())
        host = buffer.host().ctypes.data
        for lo, hi, fill in ranges:
            if device is not None:
                pieces = [(device, lo, hi)]
            else:
                bounds = cuts(hi - lo, len(devices))
                pieces = [(d, lo + a, lo + b) for d, (a, b) in enumerate(zip(bounds, bounds[1:],
                                                                              strict=False))]
            for d, a, b in pieces:
                staged = [(x, y) for x, y, mask in (buffer.tracker.query(a, b) if a < b else ())
                          if mask == 1 << HOST]          # bytes nothing has replaced since
                for x, y in staged:
                    if fill is not None:
                        devices[d].fill(buffer.instance(d) + x, fill, y - x)
                    else:
                        devices[d].upload(buffer.instance(d) + x, host + x, y - x)
                        stats.link_bytes[("host", devices[d].name)] += y - x
                        stats.copies += 1
                    buffer.tracker.assign(x, y, device_bit(d))
