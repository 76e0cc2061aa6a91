"""Partitioned launches driven by real access models (the analysis of s2s on the samples' kernels, serialized
and loaded back as ``runtime.access.KernelAccess``), not by test doubles: results, who holds what, the
exact per-launch conflict check, unbounded reads, unknown element sizes, and ``s2s_set_access``."""

from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest
from rt_support import CUDA_SAMPLES, Helper, hotspot_fields, hotspot_reference

from runtime import capi
from runtime.access import KernelAccess
from runtime.api import Runtime
from s2s.analysis.kernel.access import analyze_unit
from s2s.frontend.extract import load

f32 = np.float32


def models_of(path) -> dict[str, KernelAccess]:
    """Access models of every kernel of a file, through the serialized form the rewrite embeds."""
    loaded = load(str(path))
    assert loaded.model is not None, loaded.diagnostics
    return {m.kernel: KernelAccess.from_dict(json.loads(json.dumps(m.to_dict())))
            for m in analyze_unit(loaded.model.kernel_bodies)}


def source_models(tmp_path, text: str) -> tuple[str, dict[str, KernelAccess]]:
    path = tmp_path / "k.cu"
    path.write_text(text)
    return str(path), models_of(path)


@pytest.fixture(scope="module")
def rt3():
    return Runtime("cpu", 3, threads=2)


def test_hotspot_steps_with_the_real_model_move_only_halo_rows(rt3):
    helper = Helper(rt3)
    model = models_of(CUDA_SAMPLES / "hotspot" / "hotspot.cu")["hotspot_step"]
    mod = helper.module("hotspot")
    width, height, steps = 45, 37, 4                    # 3 x 3 blocks of 16 x 16: rows 37 = 16 + 16 + 5
    temp, power = hotspot_fields(width, height)
    dp, src, dst = helper.put(power), helper.put(temp), helper.empty(temp.nbytes)
    moved = []
    for _ in range(steps):
        stats = rt3.launch(mod["hotspot_step"], (3, 3), (16, 16),
                           [dp, src, dst, width, height, 0.125, 1.0, 1.0, 0.0625], access=model)
        assert stats.partitioned, stats.reason
        assert [box.hi[1] - box.lo[1] for _, box in stats.boxes] == [1, 1, 1]
        moved.append(sum(n for (a, b), n in stats.transfers.link_bytes.items() if a != "host"))
        src, dst = dst, src
    got = helper.get(src, f32, width * height).reshape(height, width)
    np.testing.assert_allclose(got, hotspot_reference(temp, power, steps), rtol=1e-5)
    # after the first step, each of the 2 inner boundaries sends one row each way: 4 rows of 45 floats
    assert moved[1:] == [4 * width * 4] * (steps - 1)


def test_nbody_positions_are_sent_once_then_shared(rt3):
    helper = Helper(rt3)
    models = models_of(CUDA_SAMPLES / "nbody" / "nbody.cu")
    mod = helper.module("nbody")
    n = 700
    pos = np.zeros((n, 4), f32)
    pos[:, :3] = (np.arange(3 * n).reshape(n, 3) % 11) * 0.5
    pos[:, 3] = 1.0
    dpos, dacc = helper.put(pos), helper.empty(pos.nbytes)
    first = rt3.launch(mod["compute_forces"], 3, 256, [dpos, dacc, n], access=models["compute_forces"])
    again = rt3.launch(mod["compute_forces"], 3, 256, [dpos, dacc, n], access=models["compute_forces"])
    assert first.partitioned and again.partitioned
    assert first.transfers.total_bytes > 0 and again.transfers.total_bytes == 0
    single = Runtime("cpu", 1, threads=2)
    h1 = Helper(single)
    m1 = h1.module("nbody")
    ref = h1.empty(pos.nbytes)
    single.launch(m1["compute_forces"], 3, 256, [h1.put(pos), ref, n])
    assert np.array_equal(helper.get(dacc, f32, 4 * n), h1.get(ref, f32, 4 * n))


def test_conflict_of_the_actual_launch_runs_whole(tmp_path, rt3):
    path, models = source_models(tmp_path, """
__global__ void strided(float *out, int s) {
    out[blockIdx.x * s + threadIdx.x] = (float)blockIdx.x;
}""")
    access = models["strided"]
    assert access.partitionable                          # injective on the tool's sample launches
    mod = rt3.load_module(path=path)
    out = rt3.malloc(64 * 4)
    ok = rt3.launch(mod["strided"], 6, 8, [out, 8], access=access)
    assert ok.partitioned
    clash = rt3.launch(mod["strided"], 6, 8, [out, 4], access=access)   # blocks overlap by 4 elements
    assert not clash.partitioned
    assert clash.reason.startswith("this launch: threads of different blocks write out[")
    host = np.empty(64, f32)
    rt3.memcpy_dtoh(host, out)
    # block b writes [4b, 4b + 8): the racy overlaps hold one of their two writers, the rest is exact
    for i in range(28):
        assert host[i] in {b for b in range(6) if 4 * b <= i < 4 * b + 8}, i


def test_unbounded_reads_are_clipped_to_the_buffer(tmp_path, rt3):
    path, models = source_models(tmp_path, """
__global__ void gather(const float *x, const int *idx, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[idx[i]];
}""")
    access = models["gather"]
    assert access.partitionable and not access.models["x"].read_exact
    n = 1000
    x = np.arange(n, dtype=f32) * 0.5
    idx = ((np.arange(n) * 37) % n).astype(np.int32)
    mod = rt3.load_module(path=path)
    helper = Helper(rt3)
    dx, didx, dy = helper.put(x), helper.put(idx), helper.empty(4 * n)
    stats = rt3.launch(mod["gather"], 8, 128, [dx, didx, dy, n], access=access)
    assert stats.partitioned
    assert np.array_equal(helper.get(dy, f32, n), x[idx])
    # every device read all of x (clipped from [0, 2^62)), so x is now held by all three devices
    holders = rt3.holders(dx, x.nbytes)
    assert all(len([h for h in names if h != "host"]) == 3 for _, _, names in holders)


def test_unknown_element_size_runs_whole(rt3):
    models = models_of(CUDA_SAMPLES / "template_launch" / "template_launch.cu")
    access = models["axpy_kernel"]
    assert access.partitionable and access.models["x"].elem_size is None
    helper = Helper(rt3)
    mod = helper.module("template_launch", instantiate=["axpy_kernel<float>"])
    n = 500
    dx, dy = helper.put(np.ones(n, f32)), helper.put(np.ones(n, f32))
    stats = rt3.launch(mod["axpy_kernel<float>"], 2, 256, [2.0, dx, dy, n], access=access)
    assert not stats.partitioned and "element size of 'x'" in stats.reason
    assert np.array_equal(helper.get(dy, f32, n), np.full(n, 3.0, f32))


def test_set_access_through_the_c_interface(monkeypatch):
    monkeypatch.setattr(capi, "_state", {"runtime": Runtime("cpu", 2, threads=2), "modules": [], "access": {}})
    path = CUDA_SAMPLES / "saxpy" / "saxpy.cu"
    model = models_of(path)["saxpy"]
    handle = capi.module_load(str(path), None)
    assert capi.set_access(handle, "saxpy", json.dumps(model.to_dict())) == 0
    n = 3000
    x, y = np.arange(n, dtype=f32), np.ones(n, f32)
    dx, dy = capi.malloc(4 * n), capi.malloc(4 * n)
    capi.memcpy(dx, x.ctypes.data, 4 * n, capi.HOST_TO_DEVICE)
    capi.memcpy(dy, y.ctypes.data, 4 * n, capi.DEFAULT)
    values = [ctypes.c_int(n), ctypes.c_float(2.0), ctypes.c_uint64(dx), ctypes.c_uint64(dy)]
    argv = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in values])
    capi.launch(handle, "saxpy", (12, 1, 1), (256, 1, 1), 0, ctypes.addressof(argv))
    stats = capi.runtime().launches[-1]
    assert stats.partitioned and len(stats.boxes) == 2
    out = np.empty(n, f32)
    capi.memcpy(out.ctypes.data, dy, 4 * n, capi.DEVICE_TO_HOST)
    assert np.array_equal(out, 2 * x + 1)
    with pytest.raises(Exception, match="parameters"):
        capi.set_access(handle, "saxpy", json.dumps({**model.to_dict(), "params": ["n"]}))
