"""Fixtures of the transfer-fusion tests."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="module")
def shim_ready():
    """The runtime's C interface, built once, for host programs built against the CUDA shim
    and run on the cpu devices (skips where g++ or the interface is missing)."""
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler (g++) to build host programs against the runtime shim")
    from runtime.capi_build import build_library
    from runtime.errors import BackendUnavailable

    try:
        build_library()
    except BackendUnavailable as error:
        pytest.skip(f"the runtime's C interface is unavailable: {error}")
