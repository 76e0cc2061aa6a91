"""``scripts/bench_mgpu_gpu.py`` skips cleanly (exit 0, a printed reason, no table) where no GPU is usable."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

SCRIPT = REPO / "scripts" / "bench_mgpu_gpu.py"


def test_skips_cleanly_without_a_gpu():
    try:
        from runtime.cuda.device import open_devices
        open_devices(1)
    except Exception:          # no PyCUDA, no driver, no GPU: the skip path applies
        pass
    else:
        pytest.skip("a GPU is usable here: the skip path does not apply")
    proc = subprocess.run([sys.executable, str(SCRIPT), "saxpy"], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("bench_mgpu_gpu: skipped: ")
    assert "nothing was measured" in proc.stdout and "| program" not in proc.stdout
