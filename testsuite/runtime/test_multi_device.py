"""Virtual buffers over 1-4 emulated devices: partitioned launches, coherence, copies and statistics.

Access models come from testsuite/runtime/fakes.py (same methods as runtime.access.KernelAccess).
Every partitioned result is compared with a numpy reference, and the transfer statistics with the bytes
the partition must move (halo rows, nothing for data already held).
"""

from __future__ import annotations

import numpy as np
import pytest
from fakes import FakeAccess, FakeArray, linear_1d, rows_2d, whole
from hypothesis import given, settings
from hypothesis import strategies as st
from rt_support import CUDA_SAMPLES, hotspot_fields, hotspot_reference

from runtime.api import Runtime
from runtime.errors import AddressError, ConfigError
from runtime.partition import split_grid

f32 = np.float32

SAXPY = FakeAccess("saxpy", ["n", "a", "x", "y"],
                   {"x": FakeArray(4, linear_1d("n")), "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})
HOTSPOT = FakeAccess(
    "hotspot_step",
    ["power", "temp_src", "temp_dst", "width", "height", "step_div_cap", "rx_1", "ry_1", "rz_1"],
    {"power": FakeArray(4, rows_2d("width", "height")),
     "temp_src": FakeArray(4, rows_2d("width", "height", halo_rows=1)),
     "temp_dst": FakeArray(4, None, rows_2d("width", "height"))})


def matmul_rows(box, launch):
    k, m = launch.scalars["K"], launch.scalars["M"]
    return [(box.lo[1] * 16 * k, min(m, box.hi[1] * 16) * k)]


MATMUL = FakeAccess("matmul_tiled", ["A", "B", "C", "M", "N", "K"],
                    {"A": FakeArray(4, matmul_rows),
                     "B": FakeArray(4, whole(lambda launch: launch.scalars["K"] * launch.scalars["N"])),
                     "C": FakeArray(4, None, rows_2d("N", "M"))})


def runtime(devices: int) -> Runtime:
    return Runtime("cpu", devices, threads=2)


def upload(rt, array):
    buf = rt.malloc(array.nbytes)
    rt.memcpy_htod(buf, array)
    return buf


def download(rt, buf, dtype, count):
    out = np.empty(count, dtype)
    rt.memcpy_dtoh(out, buf)
    return out


@pytest.mark.parametrize("devices", [1, 2, 3, 4])
def test_partitioned_saxpy_and_shared_copies(devices):
    rt = runtime(devices)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
    n = 10_007
    x, y = (np.arange(n) % 16 * 0.125).astype(f32), (np.arange(n) % 7 * 0.5).astype(f32)
    dx, dy = upload(rt, x), upload(rt, y)
    grid = (n + 255) // 256
    first = rt.launch(mod["saxpy"], grid, 256, [n, 2.5, dx, dy], access=SAXPY)
    assert first.partitioned == (devices > 1) and len(first.boxes) == devices
    second = rt.launch(mod["saxpy"], grid, 256, [n, 2.5, dx, dy], access=SAXPY)
    assert second.transfers.copies == 0          # each device already holds what its box reads
    assert np.array_equal(download(rt, dy, f32, n), f32(2.5) * x + (f32(2.5) * x + y))
    owners = [names for _, _, names in rt.holders(dy, 4 * n)]
    assert owners == [[f"cpu{d}"] for d in range(devices)]      # one segment per partition


@pytest.mark.parametrize("devices,mode", [(1, "auto"), (2, "auto"), (3, "auto"), (4, "auto"), (4, "2d")])
def test_partitioned_hotspot_moves_only_halos(devices, mode):
    rt = runtime(devices)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "hotspot" / "hotspot.cu"))
    width, height, steps = 64, 64, 5
    temp, power = hotspot_fields(width, height)
    dp, src, dst = upload(rt, power), upload(rt, temp), rt.malloc(temp.nbytes)
    grid = ((width + 15) // 16, (height + 15) // 16)
    stats = []
    for _ in range(steps):
        stats.append(rt.launch(mod["hotspot_step"], grid, (16, 16),
                               [dp, src, dst, width, height, 0.125, 1.0, 1.0, 0.0625],
                               access=HOTSPOT, partition=mode))
        src, dst = dst, src
    got = download(rt, src, f32, width * height).reshape(height, width)
    np.testing.assert_allclose(got, hotspot_reference(temp, power, steps), rtol=1e-5)
    if mode == "auto" and devices > 1:
        # steady state: every inner boundary exchanges one row each way
        assert stats[-1].transfers.total_bytes == 2 * (devices - 1) * width * 4
        assert stats[-1].transfers.copies == 2 * (devices - 1)


@pytest.mark.parametrize("devices,mode", [(2, "auto"), (4, "2d")])
def test_partitioned_matmul(devices, mode):
    rt = runtime(devices)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "matmul_tiled" / "matmul_tiled.cu"))
    M, N, K = 70, 50, 33
    A = (np.arange(M * K) % 9 * 0.5 - 2).astype(f32).reshape(M, K)
    B = (np.arange(K * N) % 7 * 0.25 - 0.5).astype(f32).reshape(K, N)
    dA, dB, dC = upload(rt, A), upload(rt, B), rt.malloc(4 * M * N)
    st_ = rt.launch(mod["matmul_tiled"], ((N + 15) // 16, (M + 15) // 16), (16, 16), [dA, dB, dC, M, N, K],
                    access=MATMUL, partition=mode)
    assert st_.partitioned and st_.write_ranges >= devices
    assert np.array_equal(download(rt, dC, f32, M * N).reshape(M, N), (A.astype(np.float64) @ B).astype(f32))


def test_unpartitionable_kernel_runs_whole_on_device_zero():
    rt = runtime(3)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "macro_launch" / "macro_launch.cu"))
    n = 2_000
    v = (np.arange(n) % 32).astype(f32)
    dv, dh = upload(rt, v), upload(rt, np.zeros(16, np.int32))
    model = FakeAccess("histogram_kernel", ["v", "hist", "n"], partitionable=False,
                       reason="atomic update of hist")
    stats = rt.launch(mod["histogram_kernel"], (n + 255) // 256, 256, [dv, dh, n], access=model)
    assert not stats.partitioned and stats.reason == "atomic update of hist" and stats.boxes[0][0] == 0
    bins = np.clip((v * f32(0.5)).astype(np.int32), 0, 15)
    assert np.array_equal(download(rt, dh, np.int32, 16), np.bincount(bins, minlength=16))
    assert rt.holders(dh, 64) == [(0, 64, ["cpu0"])]
    assert all("cpu0" in names for _, _, names in rt.holders(dv, 4 * n))      # a shared copy, not a move


def test_written_pointer_without_model_falls_back():
    rt = runtime(2)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
    partial = FakeAccess("saxpy", ["n", "a", "x", "y"], {"x": FakeArray(4, linear_1d("n"))})
    dx, dy = upload(rt, np.ones(600, f32)), upload(rt, np.ones(600, f32))
    stats = rt.launch(mod["saxpy"], 3, 256, [600, 1.0, dx, dy], access=partial)
    assert not stats.partitioned and "'y'" in stats.reason
    assert (download(rt, dy, f32, 600) == 2).all()


def test_read_only_data_is_shared_not_moved_twice():
    rt = runtime(2)
    dx = upload(rt, np.arange(1000, dtype=f32))
    assert rt.holders(dx, 4000) == [(0, 1792, ["cpu0"]), (1792, 4000, ["cpu1"])]
    mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
    everything = FakeAccess("saxpy", ["n", "a", "x", "y"],
                            {"x": FakeArray(4, whole(lambda launch: launch.scalars["n"])),
                             "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})
    dy = upload(rt, np.zeros(1000, f32))
    first = rt.launch(mod["saxpy"], 4, 256, [1000, 1.0, dx, dy], access=everything)
    # all of x both ways, plus y[448:512] (linear cut at byte 1792, box 0 ends at element 512)
    assert dict(first.transfers.link_bytes) == {("cpu1", "cpu0"): 4000 - 1792 + 256, ("cpu0", "cpu1"): 1792}
    assert rt.holders(dx, 4000) == [(0, 4000, ["cpu0", "cpu1"])]
    again = rt.launch(mod["saxpy"], 4, 256, [1000, 1.0, dx, dy], access=everything)
    assert again.transfers.copies == 0


def test_upload_by_read_hint_needs_no_transfer_at_launch():
    rt = runtime(4)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "hotspot" / "hotspot.cu"))
    width = height = 48
    temp, power = hotspot_fields(width, height)
    dp, src, dst = rt.malloc(power.nbytes), rt.malloc(temp.nbytes), rt.malloc(temp.nbytes)
    args = [dp, src, dst, width, height, 0.125, 1.0, 1.0, 0.0625]
    grid = (3, 3)
    for buf, data in ((dp, power), (src, temp)):
        hint = rt.read_hint(mod["hotspot_step"], grid, (16, 16), args, HOTSPOT, buf)
        assert sorted(hint) == [0, 1, 2, 3]         # 3x3 blocks on 4 devices: a 2x2 split
        rt.memcpy_htod(buf, data, distribute=hint)
    stats = rt.launch(mod["hotspot_step"], grid, (16, 16), args, access=HOTSPOT)
    assert stats.transfers.copies == 0
    got = download(rt, dst, f32, width * height).reshape(height, width)
    np.testing.assert_allclose(got, hotspot_reference(temp, power, 1), rtol=1e-6)


def test_memcpy_modes_memset_dtod_and_free():
    rt = runtime(3)
    data = np.arange(3000, dtype=np.int32)
    a = rt.malloc(data.nbytes)
    rt.memcpy_htod(a, data, distribute="host")
    assert rt.holders(a, data.nbytes) == [(0, data.nbytes, ["host"])]
    rt.memcpy_htod(a, data, distribute={2: [(400, 800)]})
    assert rt.holders(a, data.nbytes)[1] == (400, 800, ["host", "cpu2"])
    b = rt.malloc(data.nbytes)
    rt.memset(b, 0xFF, data.nbytes)
    rt.memcpy_dtod(b + 40, a + 400, 800)
    got = download(rt, b, np.int32, 3000)
    assert (got[:10] == -1).all() and np.array_equal(got[10:210], data[100:300]) and (got[210:] == -1).all()
    rt.memcpy_htod(a.addr + 8, np.array([7, 8], np.int32))
    assert list(download(rt, a, np.int32, 4)) == [0, 1, 7, 8]
    rt.free(a)
    with pytest.raises(AddressError, match="freed|no device allocation"):
        rt.memcpy_dtoh(np.empty(4, np.int32), a)
    with pytest.raises(AddressError, match="run past the end"):
        rt.memcpy_htod(b + 8, data)
    with pytest.raises(AddressError, match="inside an allocation"):
        rt.free(b + 4)


def test_configuration_errors(monkeypatch):
    with pytest.raises(ConfigError):
        Runtime("opencl", 1)
    with pytest.raises(ConfigError):
        Runtime("cpu", 0)
    monkeypatch.setenv("S2S_DEVICES", "four")
    with pytest.raises(ConfigError, match="S2S_DEVICES"):
        Runtime("cpu")
    monkeypatch.setenv("S2S_DEVICES", "4")
    monkeypatch.setenv("S2S_BACKEND", "cpu")
    assert Runtime().device_count == 4


@settings(max_examples=150, deadline=None, database=None)
@given(grid=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 3)), parts=st.integers(1, 8),
       mode=st.sampled_from(["auto", "1d", "2d"]))
def test_split_grid_covers_every_block_once(grid, parts, mode):
    boxes = split_grid(grid, parts, mode)
    assert len(boxes) == parts
    seen = np.zeros(grid[::-1], np.int32)
    for box in boxes:
        seen[box.lo[2]:box.hi[2], box.lo[1]:box.hi[1], box.lo[0]:box.hi[0]] += 1
    assert (seen == 1).all()
