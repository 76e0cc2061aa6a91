"""``launch`` placement (issue 18 item 6): a host-to-device copy (and a memset) waits for the first
launch that takes the buffer; a launch that is not split then moves no bytes between devices, and a
split launch sees exactly what a ``linear`` copy would have given it."""

from __future__ import annotations

import numpy as np
from fakes import FakeAccess, FakeArray, linear_1d
from rt_support import CUDA_SAMPLES

from runtime.api import Runtime

f32 = np.float32
HISTOGRAM = FakeAccess("histogram_kernel", ["v", "hist", "n"], partitionable=False,
                       reason="atomic update of hist")
SAXPY = FakeAccess("saxpy", ["n", "a", "x", "y"],
                   {"x": FakeArray(4, linear_1d("n")), "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})


def _device_bytes(stats) -> int:
    return sum(n for (src, dst), n in stats.link_bytes.items() if src != "host" and dst != "host")


def _histogram(distribute: str):
    """The memset_histogram pattern: input copied, bins zeroed, an atomic kernel on one device."""
    rt = Runtime("cpu", 2, threads=2, distribute=distribute)
    mod = rt.load_module(path=str(CUDA_SAMPLES / "macro_launch" / "macro_launch.cu"))
    n = 50_000
    v = (np.arange(n) % 32).astype(f32)
    dv, dh = rt.malloc(v.nbytes), rt.malloc(64)
    rt.memcpy_htod(dv, v)
    rt.memset(dh, 0, 64)
    stats = rt.launch(mod["histogram_kernel"], (n + 255) // 256, 256, [dv, dh, n], access=HISTOGRAM)
    out = np.empty(16, np.int32)
    rt.memcpy_dtoh(out, dh)
    bins = np.clip((v * f32(0.5)).astype(np.int32), 0, 15)
    assert np.array_equal(out, np.bincount(bins, minlength=16))
    return rt, stats, dv


def test_unsplit_launch_moves_nothing_between_devices():
    _rt, linear, _ = _histogram("linear")
    assert not linear.partitioned
    assert _device_bytes(linear.transfers) == (200_000 - 99_840) + 64   # cuts at 256-byte grains
    rt, placed, dv = _histogram("launch")
    assert not placed.partitioned and _device_bytes(placed.transfers) == 0
    assert dict(rt.copy_stats.link_bytes) == {("host", "cpu0"): 200_000,   # the input, to where it runs
                                            ("cpu0", "host"): 64}        # the bins read back
    assert rt.holders(dv, 200_000) == [(0, 200_000, ["cpu0"])]


def test_split_launch_reads_its_boxes_from_the_host():
    """saxpy over 4 blocks on 2 devices: box 0 is elements [0, 512), the linear cut at byte 1792; a
    linear copy makes the launch move the difference, a placed copy moves nothing between devices."""
    moved = {}
    for distribute in ("linear", "launch"):
        rt = Runtime("cpu", 2, threads=2, distribute=distribute)
        mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
        x, y = np.arange(1000, dtype=f32), np.ones(1000, f32)
        dx, dy = rt.malloc(4000), rt.malloc(4000)
        rt.memcpy_htod(dx, x)
        rt.memcpy_htod(dy, y)
        stats = rt.launch(mod["saxpy"], 4, 256, [1000, 2.0, dx, dy], access=SAXPY)
        out = np.empty(1000, f32)
        rt.memcpy_dtoh(out, dy)
        assert np.array_equal(out, 2 * x + y) and stats.partitioned
        moved[distribute] = _device_bytes(stats.transfers)
        host_to_devices = sum(n for (src, _), n in rt.copy_stats.link_bytes.items() if src == "host")
        assert host_to_devices == 8000          # each byte once from the host, either way
    assert moved == {"linear": 2 * (2048 - 1792), "launch": 0}
    again = rt.launch(mod["saxpy"], 4, 256, [1000, 2.0, dx, dy], access=SAXPY)
    assert _device_bytes(again.transfers) == 0


def test_pending_copy_read_back_and_copied_on_device():
    rt = Runtime("cpu", 2, threads=2, distribute="launch")
    data = np.arange(300, dtype=np.int32)
    a, b = rt.malloc(1200), rt.malloc(1200)
    rt.memcpy_htod(a, data)
    out = np.empty(300, np.int32)
    rt.memcpy_dtoh(out, a)                       # from the staged bytes: nothing moved yet
    assert np.array_equal(out, data) and rt.copy_stats.total_bytes == 0
    rt.memcpy_dtod(b, a, 1200)                   # placed linearly first, then copied on the devices
    assert [names for _, _, names in rt.holders(a, 1200)] == [["cpu0"], ["cpu1"]]
    rt.memcpy_dtoh(out, b)
    assert np.array_equal(out, data)


def test_copy_after_memset_supersedes_the_fill():
    """cuda-samples' asyncAPI: ``cudaMemset(d, 255)`` then ``cudaMemcpy(d, zeros)``, both pending
    until the launch. The launch must see the copy (it used to fill 255 on the device first, which
    made the host's copy look placed already: the copy was lost). Whole and partial overlaps, a
    split launch and one on a single device."""
    for blocks, partial in ((4, False), (4, True), (1, False)):
        rt = Runtime("cpu", 2, threads=2, distribute="launch")
        mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
        n = 256 * blocks
        x, y = np.arange(n, dtype=f32), np.full(n, 3, f32)
        dx, dy = rt.malloc(4 * n), rt.malloc(4 * n)
        rt.memset(dx, 255, 4 * n)
        rt.memcpy_htod(dx, x)
        rt.memset(dy, 0, 4 * n)
        rt.memcpy_htod(dy, y[: n // 2] if partial else y)
        rt.launch(mod["saxpy"], blocks, 256, [n, 2.0, dx, dy], access=SAXPY)
        out = np.empty(n, f32)
        rt.memcpy_dtoh(out, dy)
        expected = 2 * x + (np.where(np.arange(n) < n // 2, y, 0) if partial else y)
        assert np.array_equal(out, expected), (blocks, partial)


def test_part_a_split_launch_does_not_read_waits_for_the_launch_that_does():
    """registered_streams: the whole buffer copied, a first launch over its second half, then
    launches over quarters of the first half with half-size blocks. The half the first launch does
    not read used to be cut linearly at that launch (each quarter on one device), so each later
    launch fetched half its quarter from the other device; it now waits for them: no bytes move
    between devices, and the results are the same."""
    rt = Runtime("cpu", 2, threads=2, distribute="launch")
    mod = rt.load_module(path=str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"))
    n, quarter = 1024, 256
    x, y = np.arange(n, dtype=f32), np.full(n, 3, f32)
    dx, dy = rt.malloc(4 * n), rt.malloc(4 * n)
    rt.memcpy_htod(dx, x)
    rt.memcpy_htod(dy, y)
    first = rt.launch(mod["saxpy"], 2, 256, [n // 2, 2.0, dx + 2 * n, dy + 2 * n], access=SAXPY)
    assert first.partitioned and _device_bytes(first.transfers) == 0
    later = [rt.launch(mod["saxpy"], 2, 128, [quarter, 1.0, dx + 4 * q * quarter, dy + 4 * q * quarter],
                       access=SAXPY) for q in (0, 1)]
    assert all(stats.partitioned for stats in later)
    assert [_device_bytes(stats.transfers) for stats in later] == [0, 0]
    assert sum(n for (src, _), n in rt.copy_stats.link_bytes.items() if src == "host") == 8 * n
    out = np.empty(n, f32)
    rt.memcpy_dtoh(out, dy)
    assert np.array_equal(out, np.where(np.arange(n) < n // 2, x, 2 * x) + y)
