"""Fixtures of the runtime tests: runtimes with 1 and 3 emulated devices and sample kernel modules.

Modules are compiled once per session (and cached on disk under a per-session directory unless
S2S_CPU_CACHE is set, so a stale cache can never hide a header change: the key covers the headers anyway).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runtime.api import Runtime  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CUDA_SAMPLES = REPO / "samples" / "cuda"


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory):
    if not os.environ.get("S2S_CPU_CACHE"):
        os.environ["S2S_CPU_CACHE"] = str(tmp_path_factory.mktemp("s2s-runtime-cache"))
    yield


@pytest.fixture(scope="session")
def rt1():
    return Runtime("cpu", 1, threads=2)


@pytest.fixture(scope="session")
def rt3():
    return Runtime("cpu", 3, threads=2)


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


@pytest.fixture(params=["1dev", "3dev"])
def helper(request, rt1, rt3):
    """Each sample test runs on one device and on three (whole-grid fallback without an access model)."""
    return Helper(rt1 if request.param == "1dev" else rt3)
