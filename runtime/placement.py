"""Where a host-to-device copy lands: decided by the first launch that uses the buffer (``launch`` mode).

With the ``linear`` distribution a ``cudaMemcpy`` host-to-device splits the bytes over the devices at
once. That is right for a kernel that is then split the same way, and wrong for one that runs whole on
one device (atomics, an unknown access model): it must then fetch from the other devices the part the
copy put there (issue 18 item 6: a 200 kB histogram input moved 100,672 bytes between 2 devices).

In ``launch`` mode the copy is staged in the buffer's host memory and remembered as *pending*; the
next launch that takes the buffer places it: when the launch is split over several devices, each
device gets from the host the bytes it reads in that launch (a halo read by two devices comes from
the host to both) and the bytes it does not read stay staged for the next launch that takes the buffer
(cut linearly, a first launch over half of the buffer made later launches split another way fetch the
other half between devices: the corpus program registered_streams); whole on the one device that
runs the launch otherwise. Either way the first launch moves no bytes between devices. Operations that read or write the buffer in place of a launch
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
        """Stage [lo, hi): it replaces what earlier staged ranges held there (the host memory holds
        the newest bytes; a ``memset`` then a copy over it must upload the copy, not fill on top of
        it at the launch: cuda-samples' asyncAPI fills its buffer with 255, then copies zeros)."""
        ranges = self._ranges.setdefault(buffer, [])
        ranges[:] = [piece for a, b, f in ranges
                     for piece in ((a, min(b, lo), f), (max(a, hi), b, f)) if piece[0] < piece[1]]
        ranges.append((lo, hi, fill))

    def drop(self, buffer: VirtualBuffer) -> None:
        self._ranges.pop(buffer, None)

    def has(self, buffer: VirtualBuffer) -> bool:
        return buffer in self._ranges

    def place(self, buffer: VirtualBuffer, devices: list, device: int | None, cuts,
              stats: TransferStats, reads=(), again: TransferStats | None = None,
              split_launch: bool = False) -> None:
        """Upload ``buffer``'s pending ranges from its host memory: all to ``device``; or (None) first
        the bytes each device reads in the launch, ``reads`` [(device, lo, hi)], to that device (they
        stay on the host too: a halo read by two devices comes from the host to both, not from one
        device to the other), then the rest cut linearly over ``devices`` by ``cuts(nbytes, parts)``,
        those devices becoming their only holders, as after a ``linear`` copy. ``stats`` counts
        each byte's first upload (the program's copy), ``again`` the uploads of bytes another
        device got already (a halo: the launch's traffic, not the copy's). ``split_launch``: the
        bytes no device reads stay pending instead of being cut linearly (a first launch over
        half of a buffer no longer decides where the other half goes)."""
        ranges = self._ranges.pop(buffer, ())
        sent: list[tuple[int, int]] = []      # bytes uploaded once: the program's copy
        for lo, hi, fill in ranges:
            for d, a, b in reads:
                self._send(buffer, devices[d], d, max(a, lo), min(b, hi), fill, stats, keep_host=True,
                           sent=sent, again=again)
            if device is None and split_launch:
                # bytes this launch does not read stay staged for the launch that reads them (cut
                # linearly here, a later launch split another way fetched them between devices)
                for a, b in _outside(lo, hi, [(a, b) for _d, a, b in reads]):
                    self._ranges.setdefault(buffer, []).append((a, b, fill))
                continue
            if device is not None:
                pieces = [(device, lo, hi)]
            else:
                bounds = cuts(hi - lo, len(devices))
                pieces = [(d, lo + a, lo + b) for d, (a, b) in enumerate(zip(bounds, bounds[1:],
                                                                              strict=False))]
            for d, a, b in pieces:
                self._send(buffer, devices[d], d, a, b, fill, stats, keep_host=False)

    @staticmethod
    def _send(buffer, target, d: int, a: int, b: int, fill, stats, keep_host: bool,
              sent: list | None = None, again: TransferStats | None = None) -> None:
        """The staged bytes of [a, b) that ``target`` (device ``d``) lacks: uploaded (or filled)."""
        if a >= b:
            return
        staged = [(x, y) for x, y, mask in buffer.tracker.query(a, b)
                  if mask & 1 << HOST and not mask & device_bit(d) and (keep_host or mask == 1 << HOST)]
        for x, y in staged:
            if fill is not None:
                target.fill(buffer.instance(d) + x, fill, y - x)
            else:
                target.upload(buffer.instance(d) + x, buffer.host().ctypes.data + x, y - x)
                repeated = _overlap(sent, x, y) if sent is not None else 0
                stats.link_bytes[("host", target.name)] += y - x - repeated
                stats.copies += 1
                if repeated and again is not None:
                    again.link_bytes[("host", target.name)] += repeated
                    again.copies += 1
            if keep_host:
                buffer.tracker.add(x, y, device_bit(d))
            else:
                buffer.tracker.assign(x, y, device_bit(d))


def _outside(lo: int, hi: int, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces of [lo, hi) outside every range of ``covered``."""
    pieces = [(lo, hi)]
    for a, b in covered:
        pieces = [piece for x, y in pieces
                  for piece in ((x, min(y, a)), (max(x, b), y)) if piece[0] < piece[1]]
    return pieces


def _overlap(sent: list[tuple[int, int]], x: int, y: int) -> int:
    """Bytes of [x, y) already in ``sent`` (disjoint ranges); adds the rest of [x, y) to it."""
    repeated, fresh = 0, [(x, y)]
    for a, b in sent:
        repeated += max(0, min(b, y) - max(a, x))
        fresh = [piece for lo, hi in fresh
                 for piece in ((lo, min(hi, a)), (max(lo, b), hi)) if piece[0] < piece[1]]
    sent.extend(fresh)
    return repeated
