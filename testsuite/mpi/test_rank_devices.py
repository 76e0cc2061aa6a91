"""``RankDevice`` without MPI: which end of a transfer each rank does, and the host staging of a device
whose memory is not host memory (a GPU), against a transport and devices that record the calls."""

from __future__ import annotations

import ctypes

import numpy as np

from runtime.mpi.devices import RankDevice


class _Transport:
    def __init__(self, rank: int):
        self.rank, self.calls, self.after = rank, [], []

    def isend(self, addr, nbytes, dest, keep=None):
        self.calls.append(("isend", nbytes, dest, bytes(ctypes.string_at(addr, nbytes))))

    def irecv(self, addr, nbytes, source, then=None, keep=None):
        self.calls.append(("irecv", nbytes, source))
        ctypes.memmove(addr, b"R" * nbytes, nbytes)         # what the message brings
        if then is not None:
            self.after.append(then)

    def wait(self):
        for then in self.after:
            then()
        self.after.clear()


class _Gpu:
    """A device whose memory is a numpy array (not addressable by MPI): uploads and downloads copy."""
    backend = "cuda"

    def __init__(self):
        self.memory = np.zeros(64, dtype=np.uint8)
        self.calls = []

    def download(self, dst, addr, nbytes):
        self.calls.append(("download", addr, nbytes))
        ctypes.memmove(dst, self.memory.ctypes.data + addr, nbytes)

    def upload(self, addr, src, nbytes):
        self.calls.append(("upload", addr, nbytes))
        ctypes.memmove(self.memory.ctypes.data + addr, src, nbytes)


def test_gpu_bytes_are_staged_through_host_memory():
    me = _Transport(rank=1)
    gpu = _Gpu()
    gpu.memory[8:12] = [1, 2, 3, 4]
    mine = RankDevice(1, 1, gpu, me, 1 << 30, "cuda")
    other = RankDevice(0, 0, None, me, 1 << 30, "cuda")
    other.copy_from_peer(0, mine, 8, 4)                        # rank 1's bytes -> rank 0's device
    assert gpu.calls == [("download", 8, 4)] and me.calls == [("isend", 4, 0, bytes([1, 2, 3, 4]))]
    mine.copy_from_peer(20, other, 0, 4)                       # rank 0's bytes -> rank 1's GPU
    assert me.calls[-1] == ("irecv", 4, 0)
    assert gpu.calls[-1] == ("download", 8, 4)                 # the upload waits for the receive
    me.wait()
    assert gpu.calls[-1] == ("upload", 20, 4) and bytes(gpu.memory[20:24]) == b"RRRR"


def test_each_rank_does_its_end_only():
    """Host (rank 0) -> a device of rank 1: rank 0 sends, rank 1 receives, rank 2 does nothing."""
    host = np.arange(16, dtype=np.uint8)
    for rank, expected in ((0, [("isend", 16, 1, host.tobytes())]), (1, [("irecv", 16, 0)]), (2, [])):
        me = _Transport(rank)
        local = np.zeros(16, dtype=np.uint8)
        device = RankDevice(1, 1, _Cpu() if rank == 1 else None, me, 1 << 30, "cpu")
        device.upload(local.ctypes.data, host.ctypes.data, 16)
        assert me.calls == expected
        assert bytes(local) == (b"R" * 16 if rank == 1 else bytes(16))   # received in place (cpu memory)


class _Cpu:
    backend = "cpu"
