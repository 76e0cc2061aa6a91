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


# ---- plans per launch shape (runtime/launch.py: ``cached_plan``, ``_shape_transition``) ----
def _no_replay(patch) -> None:
    """Every launch plans its copies against the trackers (nothing remembered, nothing replayed)."""
    patch.setattr(launch_mod, "_remember", lambda states, plan, copies: None)
    patch.setattr(launch_mod, "_shape_transition", lambda plan, states: None)


def _saxpy_program(rt: Runtime, case: str):
    """Repeated saxpy launches, then the change ``case`` names, then the launches again; yields
    (label, tracker segments, copies, bytes per link, replayed) after every operation and the
    data at the end. Every case must plan from scratch where the change makes a remembered plan
    or transition stale."""
    sax = rt.load_module(source=HOTSPOT_SRC, name="steady.cu")["saxpy"]
    n = 1000
    x, y, z = rt.malloc(4 * n + 64), rt.malloc(4 * n), rt.malloc(4 * n)
    rt.memcpy_htod(x, np.arange(n + 16, dtype=f32))
    rt.memcpy_htod(y, np.ones(n, f32))
    rt.memcpy_htod(z, np.full(n, 2, f32))
    live = [x, y, z]

    def launch(label, xp, yp, count=n):
        stats = rt.launch(sax, (count + 255) // 256, 256, [count, 0.5, xp, yp], access=SAXPY)
        return (label, [b.tracker.segments() for b in live if not b.freed], stats.transfers.copies,
                dict(stats.transfers.link_bytes), stats.replayed)

    for step in range(4):
        yield launch(f"y {step}", x.addr + 16, y.addr)
    if case == "host write":         # the host rewrites part of x: its tracker changes under the plan
        rt.memcpy_htod(x.addr + 400, np.full(100, 7, f32))
    elif case == "other pointer":     # the same shape over another output buffer of the same size
        pass
    elif case == "other size":        # a launch of another size over the same buffers
        yield launch("y short", x.addr + 16, y.addr, n - 300)
    elif case == "other offset":
        yield launch("y shifted", x.addr + 32, y.addr)
    elif case == "freed and reallocated":
        rt.free(y.addr)
        y = rt.malloc(4 * n)
        live[1] = y
        rt.memcpy_htod(y, np.full(n, 5, f32))
    elif case == "reallocated larger":   # same arguments' values but a buffer of another size
        rt.free(z.addr)
        z = rt.malloc(4 * n + 1024)
        live[2] = z
        rt.memcpy_htod(z, np.full(n + 256, 3, f32))
    for step in range(4):
        yield launch(f"z {step}", x.addr + 16, z.addr)
        yield launch(f"y again {step}", x.addr + 16, y.addr)
    for buf in live:
        out = np.empty(buf.nbytes // 4, f32)
        rt.memcpy_dtoh(out, buf)
        yield "data", out.tolist(), 0, {}, False


@pytest.mark.parametrize("case", ["host write", "other pointer", "other size", "other offset",
                                  "freed and reallocated", "reallocated larger"])
def test_plans_per_launch_shape_replay_only_what_is_still_true(case, monkeypatch):
    with monkeypatch.context() as patch:
        _no_replay(patch)
        planned = list(_saxpy_program(Runtime("cpu", 3, threads=1), case))
    rt = Runtime("cpu", 3, threads=1)
    replayed = list(_saxpy_program(rt, case))
    assert [row[:4] for row in replayed] == [row[:4] for row in planned]
    assert not any(row[4] for row in planned)
    by_label = {row[0]: row[4] for row in replayed}
    assert by_label["y 3"]                        # the steady state replays
    # z's first launch starts from states no launch has seen (z as the host copy left it); its
    # second from the states y's second launch started from: replayed from what the shape learnt
    # over y, with the copies bound to z (a larger z is a shape of its own: it replays its own)
    assert not by_label["z 0"] and by_label["z 1"] == (case != "reallocated larger") and by_label["z 3"]
    sizes_and_offsets = {key[4] for key in rt.launch_shapes}
    assert len(sizes_and_offsets) == (2 if case in ("other size", "other offset", "reallocated larger") else 1)


def test_a_launch_shape_is_planned_once_for_every_buffer_it_meets():
    rt = Runtime("cpu", 2, threads=1)
    sax = rt.load_module(source=HOTSPOT_SRC, name="steady.cu")["saxpy"]
    model = FakeAccess("saxpy", ["n", "a", "x", "y"],
                       {"x": FakeArray(4, linear_1d("n")), "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})
    n = 512
    x = rt.malloc(4 * n)
    rt.memcpy_htod(x, np.ones(n, f32))
    outputs = [rt.malloc(4 * n) for _ in range(4)]
    for out in outputs:
        rt.memcpy_htod(out, np.zeros(n, f32))
        rt.launch(sax, 2, 256, [n, 1.0, x, out], access=model)
    assert model.calls == 2 * 3          # one plan: 2 boxes x (read x, read y, write y)
    rt.launch(sax, 2, 256, [n, 1.0, x, x], access=model)     # x aliased: another shape
    assert model.calls == 4 * 3
    for out in outputs:
        got = np.empty(n, f32)
        rt.memcpy_dtoh(got, out)
        assert (got == 1).all()
