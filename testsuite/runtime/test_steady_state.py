"""Steady-state launches replay what an earlier launch from the same tracker states did
(runtime/launch.py: ``_site`` and ``_remember``); replaying must be indistinguishable from planning.

Each program runs twice on fresh runtimes: once with replay disabled (every launch planned against the
trackers) and once as the runtime runs it.  After every operation both runs must have the same tracker
segments for every buffer, the same copies and bytes per link, and at the end the same data; the second
run must actually have replayed launches.  The programs mix launches with host copies, device copies and
memsets between them (which change tracker states behind the launches' back), pointer swaps, offsets
into buffers, and launches whose trackers are too large for a snapshot.
"""

from __future__ import annotations

import numpy as np
import pytest
from fakes import FakeAccess, FakeArray, linear_1d, rows_2d

from runtime import launch as launch_mod
from runtime.api import Runtime
from runtime.errors import AddressError

f32 = np.float32
HOTSPOT = FakeAccess(
    "hotspot_step",
    ["power", "temp_src", "temp_dst", "width", "height", "step_div_cap", "rx_1", "ry_1", "rz_1"],
    {"power": FakeArray(4, rows_2d("width", "height")),
     "temp_src": FakeArray(4, rows_2d("width", "height", halo_rows=1)),
     "temp_dst": FakeArray(4, None, rows_2d("width", "height"))})
SAXPY = FakeAccess("saxpy", ["n", "a", "x", "y"],
                   {"x": FakeArray(4, linear_1d("n", halo=3)), "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})
HOTSPOT_SRC = """
__global__ void hotspot_step(const float *power, const float *temp_src, float *temp_dst, int width, int height,
                             float step_div_cap, float rx_1, float ry_1, float rz_1) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int c = y * width + x;
    float n = temp_src[y > 0 ? c - width : c], s = temp_src[y < height - 1 ? c + width : c];
    float w = temp_src[x > 0 ? c - 1 : c], e = temp_src[x < width - 1 ? c + 1 : c];
    temp_dst[c] = temp_src[c] + step_div_cap * (power[c] + (s + n - 2.0f * temp_src[c]) * ry_1
                  + (e + w - 2.0f * temp_src[c]) * rx_1 + (80.0f - temp_src[c]) * rz_1);
}
__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def program(rt: Runtime, devices: int):
    """Run the mixed program; yield (label, observation) after every operation."""
    mod = rt.load_module(source=HOTSPOT_SRC, name="steady.cu")
    hot, sax = mod["hotspot_step"], mod["saxpy"]
    width, height = 40, 37
    rng = np.random.default_rng(3)
    power = rng.random(width * height, dtype=np.float32)
    temp = rng.random(width * height, dtype=np.float32) + 80
    bufs = [rt.malloc(power.nbytes) for _ in range(3)]
    dp, src, dst = bufs
    rt.memcpy_htod(dp, power)
    rt.memcpy_htod(src, temp)
    n = 3000
    x, y = rt.malloc(4 * n + 64), rt.malloc(4 * n)
    rt.memcpy_htod(x, np.arange(n + 16, dtype=f32))
    rt.memcpy_htod(y, np.ones(n, f32))
    everything = [*bufs, x, y]

    def observe(stats=None):
        links = None if stats is None else dict(stats.transfers.link_bytes)
        copies = None if stats is None else stats.transfers.copies
        return [b.tracker.segments() for b in everything], links, copies

    for step in range(14):
        stats = rt.launch(hot, (3, 3), (16, 16), [dp, src, dst, width, height, 0.125, 1.0, 1.0, 0.0625],
                          access=HOTSPOT)
        yield f"hotspot {step}", observe(stats), stats.replayed
        src, dst = dst, src
        stats = rt.launch(sax, (n + 255) // 256, 256, [n, 0.5, x.addr + 16, y.addr], access=SAXPY)
        yield f"saxpy {step}", observe(stats), stats.replayed
        if step == 5:            # the host rewrites part of an input: its tracker changes under the launches
            rt.memcpy_htod(src.addr + 4 * width, temp[:width].copy())
            yield "htod", observe(), False
        if step == 8:
            rt.memset(y.addr + 400, 0, 800)
            rt.memcpy_dtod(dst.addr, src.addr, 4 * width * 3)
            yield "memset dtod", observe(), False
        if step == 10:           # many small segments: no snapshot, planned every time until it is overwritten
            for k in range(0, 4 * n, 64):
                rt.memcpy_htod(y.addr + k, np.ones(4, f32) * k)
            yield "fragment", observe(), False
    out = np.empty(width * height, f32)
    rt.memcpy_dtoh(out, src)
    yy = np.empty(n, f32)
    rt.memcpy_dtoh(yy, y)
    yield "result", (out.tolist(), yy.tolist()), False


@pytest.mark.parametrize("devices", [1, 2, 3, 4])
def test_replay_is_indistinguishable_from_planning(devices, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(launch_mod, "_remember", lambda states, plan, copies: None)
        planned = list(program(Runtime("cpu", devices, threads=1), devices))
    replayed = list(program(Runtime("cpu", devices, threads=1), devices))
    assert [label for label, _, _ in planned] == [label for label, _, _ in replayed]
    for (label, want, was), (_, got, _) in zip(planned, replayed, strict=True):
        assert not was
        assert got == want, label
    replays = sum(now for _, _, now in replayed)
    assert replays >= 10, replays


def test_a_freed_buffer_is_not_reached_through_a_remembered_launch():
    rt = Runtime("cpu", 2, threads=1)
    sax = rt.load_module(source=HOTSPOT_SRC, name="steady.cu")["saxpy"]
    n = 512
    x, y = rt.malloc(4 * n), rt.malloc(4 * n)
    rt.memcpy_htod(x, np.ones(n, f32))
    rt.memcpy_htod(y, np.ones(n, f32))
    args = [n, 2.0, x.addr, y.addr]
    for _ in range(3):
        rt.launch(sax, 2, 256, args, access=SAXPY)
    rt.free(x.addr)
    with pytest.raises(AddressError):
        rt.launch(sax, 2, 256, args, access=SAXPY)
    fresh = rt.malloc(4 * n)
    rt.memcpy_htod(fresh, np.full(n, 3, f32))
    rt.launch(sax, 2, 256, [n, 2.0, fresh.addr, y.addr], access=SAXPY)
    out = np.empty(n, f32)
    rt.memcpy_dtoh(out, y)
    assert (out == 1 + 2 + 2 + 2 + 6).all()
