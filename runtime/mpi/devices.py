"""One rank's view of the devices of all ranks.

The runtime's coherence and launch code (runtime/coherence.py, runtime/launch.py) works on a list of
devices and calls ``upload``, ``download``, ``copy_from_peer``, ``launch`` ... on them.  Under MPI that
list holds every device of every rank, in rank order, and each entry is a ``RankDevice``: on the rank
that owns the device it does the work with the real device (or sends/receives the bytes that cross a
rank boundary); on every other rank it does nothing, or the matching half of a transfer.  "The host" of
the trackers is rank 0's host memory, where the program runs.

Transfers that cross ranks (``Transport``): a cpu device's memory is host memory, so it is sent and
received in place; a GPU's bytes are staged through host memory (a download before the send, an upload
when the receive completes).  A CUDA-aware MPI could send device memory directly; the runtime detects
one (``session.cuda_aware``) and reports it, but stages in either case (docs/mpi.md).
"""

from __future__ import annotations

import numpy as np

from runtime.cpu import module as cpu_module

HOST_RANK = 0


class RankDevice:
    """Device ``index`` (global) of ``rank``; ``local`` is the real device on its own rank, else None."""

    def __init__(self, index: int, rank: int, local, transport, memory: int, backend: str):
        self.index, self.rank, self.local, self.mpi = index, rank, local, transport
        self._memory, self.backend = memory, backend
        self._in_place = local is None or getattr(local, "backend", None) == "cpu"
        self.name = f"r{rank}.{backend}{index}"

    def __repr__(self) -> str:
        return f"RankDevice({self.name}, {'local' if self.local is not None else 'remote'})"

    def memory(self) -> int:
        return self._memory

    # ---- memory on the owning rank only ----
    def alloc(self, nbytes: int) -> int:
        return self.local.alloc(nbytes) if self.local is not None else 0

    def free(self, addr: int) -> None:
        if self.local is not None:
            self.local.free(addr)

    def fill(self, addr: int, value: int, nbytes: int) -> None:
        if self.local is not None:
            self.local.fill(addr, value, nbytes)

    def copy_local(self, dst: int, src: int, nbytes: int) -> None:
        if self.local is not None:
            self.local.copy_local(dst, src, nbytes)

    def synchronize(self) -> None:
        if self.local is not None:
            self.local.synchronize()

    def load(self, text, name, instantiate, include_dirs, *described):
        """The kernels of a source.  The cpu backend's module is one per process, whichever device is
        asked (the runtime asks device 0, which may live on another rank): every rank compiles it."""
        if self.local is not None:
            return self.local.load(text, name, instantiate, include_dirs, *described)
        if self.backend == "cpu":
            return cpu_module.load(text, name, instantiate, include_dirs)
        return _RemoteModule()

    def launch(self, kernel, grid, block, args, shared: int, box) -> None:
        """Run this device's box where it lives, after every transfer the launch posted has completed
        (the box reads received halos; sent bytes must not change while in flight)."""
        if self.local is not None:
            self.mpi.wait()
            self.local.launch(kernel, grid, block, args, shared, box)

    # ---- transfers, each seen from both of its ends ----
    def upload(self, addr: int, src_addr: int, nbytes: int) -> None:
        """Rank 0's host memory -> this device."""
        me = self.mpi.rank
        if self.local is not None and me == HOST_RANK:
            self.local.upload(addr, src_addr, nbytes)
        elif self.local is not None:
            self._receive(addr, nbytes, HOST_RANK)
        elif me == HOST_RANK:
            self.mpi.isend(src_addr, nbytes, self.rank)

    def download(self, dst_addr: int, addr: int, nbytes: int) -> None:
        """This device -> rank 0's host memory."""
        me = self.mpi.rank
        if self.local is not None and me == HOST_RANK:
            self.local.download(dst_addr, addr, nbytes)
        elif self.local is not None:
            self._send(addr, nbytes, HOST_RANK)
        elif me == HOST_RANK:
            self.mpi.irecv(dst_addr, nbytes, self.rank)

    def copy_from_peer(self, dst: int, peer: RankDevice, src: int, nbytes: int) -> None:
        """``peer``'s bytes -> this device: a local peer copy, or one half of a message."""
        if self.local is not None and peer.local is not None:
            copy = lambda: self.local.copy_from_peer(dst, peer.local, src, nbytes)  # noqa: E731
            if self.mpi.receiving:              # it may copy bytes still arriving (route_copies)
                self.mpi.after_wait(copy)
            else:
                copy()
        elif self.local is not None:
            self._receive(dst, nbytes, peer.rank)
        elif peer.local is not None:
            peer._send(src, nbytes, self.rank)

    def _send(self, addr: int, nbytes: int, dest: int) -> None:
        if self._in_place:
            self.mpi.isend(addr, nbytes, dest)
            return
        staged = np.empty(nbytes, dtype=np.uint8)
        self.local.download(staged.ctypes.data, addr, nbytes)
        self.mpi.isend(staged.ctypes.data, nbytes, dest, keep=staged)

    def _receive(self, addr: int, nbytes: int, source: int) -> None:
        if self._in_place:
            self.mpi.irecv(addr, nbytes, source)
            return
        staged = np.empty(nbytes, dtype=np.uint8)
        self.mpi.irecv(staged.ctypes.data, nbytes, source, keep=staged,
                       then=lambda: self.local.upload(addr, staged.ctypes.data, nbytes))


class _RemoteModule:
    """Another rank's module of a kernel source: it never runs here."""

    def kernel(self, _name: str):
        return None
