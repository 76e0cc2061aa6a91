"""The cuda backend.

Without a GPU only the nvcc side can be checked: every sample's kernel code plus the partition prelude
must build to a cubin, and the mangled names the host compiler reports must be the symbols in it.  The
GPU tests (marker ``gpu``) run partitioned launches on all GPUs and skip with a reason elsewhere.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from fakes import FakeAccess, FakeArray, linear_1d
from rt_support import CUDA_SAMPLES

from runtime.api import Runtime
from runtime.cpu import module as cpu_module
from runtime.cpu.source import prepare
from runtime.cuda.device import build_cubin, nvcc_available
from runtime.errors import BackendUnavailable

SAMPLE_FILES = sorted(p for p in CUDA_SAMPLES.glob("*/*.cu") if p.name != "main.cu")
INSTANTIATE = {"template_launch.cu": ["axpy_kernel<float>", "sum_squares_kernel<double, 256>"]}


@pytest.mark.skipif(not nvcc_available(), reason="nvcc not installed")
@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.parent.name)
def test_sample_kernels_build_for_the_gpu_with_host_mangled_names(path):
    text = path.read_text()
    inst = INSTANTIATE.get(path.name, [])
    cubin = build_cubin(prepare(text, path.name).device_text, path.name, inst, [str(path.parent)], "sm_90")
    described = cpu_module.load(text, path.name, inst, [path.parent])
    for kernel in described.kernels.values():
        assert kernel.symbol.encode() in cubin, kernel.symbol


def cuda_runtime_or_skip() -> Runtime:
    try:
        return Runtime("cuda")
    except BackendUnavailable as err:
        pytest.skip(f"no GPU: {err}")


@pytest.mark.gpu
def test_partitioned_saxpy_on_all_gpus():
    rt = cuda_runtime_or_skip()
    mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
    access = FakeAccess("saxpy", ["n", "a", "x", "y"],
                        {"x": FakeArray(4, linear_1d("n")), "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})
    n = 1 << 20
    x, y = np.arange(n, dtype=np.float32) % 8, np.ones(n, np.float32)
    dx, dy = rt.malloc(4 * n), rt.malloc(4 * n)
    rt.memcpy_htod(dx, x)
    rt.memcpy_htod(dy, y)
    stats = rt.launch(mod["saxpy"], n // 256, 256, [n, 2.0, dx, dy], access=access)
    out = np.empty(n, np.float32)
    rt.memcpy_dtoh(out, dy)
    assert stats.partitioned == (rt.device_count > 1)
    assert np.array_equal(out, 2 * x + y)


@pytest.mark.gpu
def test_barriers_warps_and_dynamic_shared_on_gpu():
    rt = cuda_runtime_or_skip()
    mod = rt.load_module(path=str(CUDA_SAMPLES / "softmax_warp" / "softmax_warp.cu"))
    rows, cols = 7, 301
    x = (np.arange(rows * cols) % 29 * 0.125).astype(np.float32)
    din, dout = rt.malloc(x.nbytes), rt.malloc(x.nbytes)
    rt.memcpy_htod(din, x)
    rt.launch(mod["softmax_rows"], rows, 128, [din, dout, rows, cols], shared=(cols + 32) * 4)
    out = np.empty_like(x)
    rt.memcpy_dtoh(out, dout)
    e = np.exp(x.reshape(rows, cols) - x.reshape(rows, cols).max(axis=1, keepdims=True))
    np.testing.assert_allclose(out.reshape(rows, cols), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_cuda_backend_absent_here_is_reported():
    if shutil.which("nvidia-smi"):
        pytest.skip("a GPU driver is present")
    with pytest.raises(BackendUnavailable, match="cuda backend"):
        Runtime("cuda")
    assert Runtime("auto", 1).backend == "cpu"


class _FakeDriver:
    """pycuda.driver as open_devices uses it, for ``gpus`` GPUs (contexts are recorded, not made)."""

    def __init__(self, gpus: int):
        self.contexts: list[int] = []
        outer = self

        class Device:
            @staticmethod
            def count():
                return gpus

            def __init__(self, index):
                self.index = index

            def make_context(self):
                outer.contexts.append(self.index)
                return object()

            def compute_capability(self):
                return (9, 0)

        class Context:
            @staticmethod
            def pop():
                pass

        self.Device, self.Context, self.Stream = Device, Context, object


@pytest.mark.parametrize(("share", "count", "placed"), [("0", 1, [0]), ("1", 3, [0, 0, 0]), ("1", None, [0])])
def test_shared_gpu_places_devices_round_robin(monkeypatch, share, count, placed):
    from runtime.cuda import device as cuda_device
    fake = _FakeDriver(1)
    monkeypatch.setattr(cuda_device, "driver", lambda: fake)
    monkeypatch.setenv("S2S_CUDA_SHARE", share)
    devices = cuda_device.open_devices(count)
    assert fake.contexts == placed
    assert [d.name for d in devices] == [f"gpu{i}" for i in range(len(placed))]
    assert {d.arch for d in devices} == {"sm_90"}


def test_more_devices_than_gpus_needs_share(monkeypatch):
    from runtime.cuda import device as cuda_device
    from runtime.errors import ConfigError
    monkeypatch.setattr(cuda_device, "driver", lambda: _FakeDriver(2))
    monkeypatch.delenv("S2S_CUDA_SHARE", raising=False)
    with pytest.raises(ConfigError, match="S2S_CUDA_SHARE=1"):
        cuda_device.open_devices(3)
    monkeypatch.setenv("S2S_CUDA_SHARE", "yes")
    with pytest.raises(ConfigError, match="expected 0 or 1"):
        cuda_device.open_devices(1)
