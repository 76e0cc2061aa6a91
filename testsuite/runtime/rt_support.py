"""Shared helpers of the runtime tests (a plain module: a conftest.py here would replace the root
``conftest`` module that other test files import by name, since this directory cannot be a package
named ``runtime``).

Kernel modules go through the normal on-disk compile cache: its key covers the source, the emulation
headers, the flags and the compiler, so a stale entry cannot hide a change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from runtime.api import Runtime

REPO = Path(__file__).resolve().parents[2]
CUDA_SAMPLES = REPO / "samples" / "cuda"


class Helper:
    """Upload numpy arrays, launch, read back: the boilerplate of every sample test."""

    def __init__(self, rt: Runtime):
        self.rt = rt

    def module(self, sample: str, file: str | None = None, instantiate=None):
        path = CUDA_SAMPLES / sample / (file or f"{sample}.cu")
        return self.rt.load_module(path=str(path), instantiate=instantiate)

    def put(self, array: np.ndarray):
        buf = self.rt.malloc(array.nbytes)
        self.rt.memcpy_htod(buf, np.ascontiguousarray(array))
        return buf

    def empty(self, nbytes: int):
        return self.rt.malloc(nbytes)

    def get(self, buf, dtype, count: int) -> np.ndarray:
        out = np.empty(count, dtype=dtype)
        self.rt.memcpy_dtoh(out, buf)
        return out


def dyadic(n, mod, scale, shift=0, seed=0):
    """n float32 values scale * (k - shift) for small integers k: exact in sums of products."""
    return (scale * ((np.arange(n) * 7 + seed) % mod - shift)).astype(np.float32)


def hotspot_reference(temp, power, steps, cap=0.125, rx=1.0, ry=1.0, rz=0.0625, amb=80.0):
    t = temp.astype(np.float64)
    for _ in range(steps):
        p = np.pad(t, 1, mode="edge")
        n, s, w, e = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
        t = t + cap * (power + (s + n - 2 * t) * ry + (e + w - 2 * t) * rx + (amb - t) * rz)
    return t


def hotspot_fields(width, height):
    x, y = np.meshgrid(np.arange(width), np.arange(height))
    temp = (320 + 0.5 * ((3 * x + 5 * y) % 17)).astype(np.float32)
    power = (0.0625 * ((7 * x + 11 * y) % 13)).astype(np.float32)
    return temp, power
