"""Every CUDA sample's kernels, run on the cpu backend, against references computed with numpy.

The kernel source is the sample file itself: the runtime blanks its host code.  Sizes are smaller than
the samples' defaults (test time) but keep their awkward shapes: lengths that are not multiples of the
block size, partial tiles, partial warps.  Inputs are dyadic, so most results are exact; kernels with
transcendental functions or a different summation order compare with a relative tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from rt_support import CUDA_SAMPLES, Helper, dyadic, hotspot_fields, hotspot_reference

from runtime.api import Runtime

f32 = np.float32


@pytest.fixture(scope="module")
def runtimes():
    return {"1dev": Runtime("cpu", 1, threads=2), "3dev": Runtime("cpu", 3, threads=2)}


@pytest.fixture(params=["1dev", "3dev"])
def helper(request, runtimes):
    """Each sample test runs on one device and on three (whole-grid fallback without an access model)."""
    return Helper(runtimes[request.param])


def test_every_sample_file_is_covered():
    covered = {"saxpy", "block_reduction", "elementwise_chain", "gemver", "hotspot", "macro_launch",
               "matmul_tiled", "nbody", "softmax_warp", "streams_events", "template_launch", "two_files",
               "bicgk",
               # in test_samples_cpu_sequences.py: transfer-fusion samples ...
               "horner", "cholesky_tiles", "block_matmul", "cg_steps",
               # ... and kernel-fusion samples
               "axpydot", "atax", "sgemv", "sgemvt", "gesummv", "vadd", "waxpby", "sscal",
               "madd", "bicgk_tiled", "softmax_chain", "layernorm", "bias_gelu"}
    assert {p.name for p in CUDA_SAMPLES.iterdir() if (p / "sample.toml").exists()} == covered


def test_saxpy(helper):
    mod = helper.module("saxpy")
    n = 10_003
    x, y = dyadic(n, 16, 0.125), dyadic(n, 7, 0.5, 3)
    dx, dy = helper.put(x), helper.put(y)
    helper.rt.launch(mod["saxpy"], (n + 255) // 256, 256, [n, 2.5, dx, dy])
    assert np.array_equal(helper.get(dy, f32, n), f32(2.5) * x + y)


def test_block_reduction(helper):
    mod = helper.module("block_reduction")
    n = 20_011
    x = dyadic(n, 17, 0.25, 7)
    din, dsum = helper.put(x), helper.put(np.zeros(1, f32))
    helper.rt.launch(mod["block_sum_atomic"], (n + 255) // 256, 256, [din, dsum, n])
    assert helper.get(dsum, f32, 1)[0] == x.astype(np.float64).sum()
    blocks = 30
    dpart, dtotal = helper.empty(blocks * 4), helper.empty(4)
    helper.rt.launch(mod["block_sum_partial"], blocks, 256, [din, dpart, n])
    helper.rt.launch(mod["final_sum"], 1, 256, [dpart, dtotal, blocks])
    idx = np.arange(n)
    owner = (idx % 512 + (idx // 512) * 512) // 512 % blocks       # block of the grid-stride loop
    expected = np.bincount(owner, weights=x.astype(np.float64), minlength=blocks)
    assert np.array_equal(helper.get(dpart, f32, blocks), expected.astype(f32))
    assert helper.get(dtotal, f32, 1)[0] == x.astype(np.float64).sum()


def test_elementwise_chain(helper):
    mod = helper.module("elementwise_chain")
    n = 5_000
    a, b, c = dyadic(n, 13, 0.25, 6), dyadic(n, 5, 0.5, 2, 1), dyadic(n, 9, 0.25, 4, 2)
    da, db, dc = helper.put(a), helper.put(b), helper.put(c)
    t1, t2, out = (helper.empty(4 * n) for _ in range(3))
    grid, rt = (n + 255) // 256, helper.rt
    rt.launch(mod["scale_kernel"], grid, 256, [da, t1, 0.5, n])
    rt.launch(mod["add_kernel"], grid, 256, [t1, db, t2, n])
    rt.launch(mod["mul_kernel"], grid, 256, [t2, dc, t1, n])
    rt.launch(mod["relu_kernel"], grid, 256, [t1, t2, n])
    rt.launch(mod["shift_kernel"], grid, 256, [t2, 0.125, n])
    rt.launch(mod["clamp_kernel"], grid, 256, [t2, out, 0.0, 1.0, n])
    ref = np.clip(np.maximum((f32(0.5) * a + b) * c, 0) + f32(0.125), 0, 1)
    assert np.array_equal(helper.get(out, f32, n), ref)


def test_gemver(helper):
    mod = helper.module("gemver")
    n = 70
    i = np.arange(n)
    A = (0.25 * ((3 * i[:, None] + 5 * i[None, :]) % 9 - 4)).astype(f32)
    u1, v1, u2, v2 = (dyadic(n, m, s, sh, k) for k, (m, s, sh) in enumerate([(3, .5, 1), (5, .25, 2),
                                                                            (4, .25, 2), (3, .5, 1)]))
    y, z = dyadic(n, 7, 0.125, 2, 5), dyadic(n, 5, 0.25, 0, 6)
    dA, dB = helper.put(A), helper.empty(A.nbytes)
    d = [helper.put(v) for v in (u1, v1, u2, v2, y, z)]
    dx, dw = helper.empty(4 * n), helper.empty(4 * n)
    rt, vec = helper.rt, (n + 255) // 256
    rt.launch(mod["ger2_kernel"], ((n + 31) // 32, (n + 7) // 8), (32, 8), [dA, dB, *d[:4], n])
    rt.launch(mod["gemv_t_kernel"], vec, 256, [dB, d[4], dx, 1.5, n])
    rt.launch(mod["vec_add_kernel"], vec, 256, [dx, d[5], n])
    rt.launch(mod["gemv_kernel"], vec, 256, [dB, dx, dw, 0.5, n])
    B = A + np.outer(u1, v1) + np.outer(u2, v2)
    x = 1.5 * (B.T.astype(np.float64) @ y) + z
    w = 0.5 * (B.astype(np.float64) @ x.astype(f32))
    assert np.array_equal(helper.get(dB, f32, n * n).reshape(n, n), B)
    assert np.array_equal(helper.get(dx, f32, n), x.astype(f32))
    assert np.array_equal(helper.get(dw, f32, n), w.astype(f32))


def test_hotspot(helper):
    mod = helper.module("hotspot")
    width, height, steps = 45, 37, 4
    temp, power = hotspot_fields(width, height)
    dp, src, dst = helper.put(power), helper.put(temp), helper.empty(temp.nbytes)
    for _ in range(steps):
        helper.rt.launch(mod["hotspot_step"], ((width + 15) // 16, (height + 15) // 16), (16, 16),
                         [dp, src, dst, width, height, 0.125, 1.0, 1.0, 0.0625])
        src, dst = dst, src
    got = helper.get(src, f32, width * height).reshape(height, width)
    np.testing.assert_allclose(got, hotspot_reference(temp, power, steps), rtol=1e-5)


def test_macro_launch(helper):
    mod = helper.module("macro_launch")
    n = 3_001
    yv = (0.25 * ((7 * np.arange(n)) % 11 - 5)).astype(f32)
    dx, dy, dv = helper.empty(4 * n), helper.put(yv), helper.empty(4 * n)
    dh = helper.put(np.zeros(16, np.int32))
    rt, grid = helper.rt, (n + 255) // 256
    rt.launch(mod["iota_kernel"], grid, 256, [dx, 0.125, -2.0, n])
    rt.launch(mod["axpby_kernel"], grid, 256, [dx, dy, dv, 0.5, 2.0, n])
    rt.launch(mod["square_kernel"], (n + 127) // 128, 128, [dv, n])
    rt.launch(mod["histogram_kernel"], grid, 256, [dv, dh, n])
    x = (0.125 * (np.arange(n) % 64) - 2).astype(f32)
    v = (f32(0.5) * x + f32(2.0) * yv) ** 2
    assert np.array_equal(helper.get(dv, f32, n), v)
    bins = np.clip((v * f32(16 / 32.0)).astype(np.int32), 0, 15)
    assert np.array_equal(helper.get(dh, np.int32, 16), np.bincount(bins, minlength=16))


def test_matmul_tiled(helper):
    mod = helper.module("matmul_tiled")
    M, N, K = 45, 37, 29
    i, k, j = np.arange(M)[:, None], np.arange(K), np.arange(N)
    A = (0.5 * ((3 * i + 5 * k + (i * k) % 7) % 9 - 3)).astype(f32)
    B = (0.25 * ((2 * k[:, None] + 3 * j + (k[:, None] * j) % 5) % 7 - 2)).astype(f32)
    dA, dB, dC = helper.put(A), helper.put(B), helper.empty(4 * M * N)
    helper.rt.launch(mod["matmul_tiled"], ((N + 15) // 16, (M + 15) // 16), (16, 16), [dA, dB, dC, M, N, K])
    assert np.array_equal(helper.get(dC, f32, M * N).reshape(M, N), (A.astype(np.float64) @ B).astype(f32))


def test_nbody(helper):
    mod = helper.module("nbody")
    n, dt, damping = 300, 0.001, 0.995
    rng = np.random.default_rng(1)
    pos = np.concatenate([1 + rng.integers(0, 1024, (n, 3)) / 128, 1 + 0.25 * (np.arange(n) % 4)[:, None]],
                         axis=1).astype(f32)
    vel = np.zeros((n, 4), f32)
    dpos, dout, dvel, dacc = helper.put(pos), helper.empty(pos.nbytes), helper.put(vel), helper.empty(pos.nbytes)
    blocks = (n + 255) // 256
    helper.rt.launch(mod["compute_forces"], blocks, 256, [dpos, dacc, n])
    helper.rt.launch(mod["integrate"], blocks, 256, [dpos, dout, dvel, dacc, dt, damping, n])
    p = pos.astype(np.float64)
    r = p[None, :, :3] - p[:, None, :3]
    inv = (np.sum(r * r, axis=2) + 0.05) ** -1.5
    acc = np.sum(r * (p[None, :, 3] * inv)[:, :, None], axis=1)
    v = (acc * dt) * damping
    np.testing.assert_allclose(helper.get(dacc, f32, 4 * n).reshape(n, 4)[:, :3], acc, rtol=2e-4, atol=1e-4)
    got = helper.get(dout, f32, 4 * n).reshape(n, 4)
    np.testing.assert_allclose(got[:, :3], p[:, :3] + v * dt, rtol=1e-6)
    assert np.array_equal(got[:, 3], pos[:, 3])


def test_softmax_warp(helper):
    mod = helper.module("softmax_warp")
    rows, cols = 9, 173                       # 173 columns: a partial last warp in the strided loops
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    x = (0.125 * ((7 * r + 13 * c) % 29 - 14)).astype(f32)
    din, dout = helper.put(x), helper.empty(x.nbytes)
    count = rows * cols
    helper.rt.launch(mod["scale_logits"], (count + 255) // 256, 256, [din, 2.0, count])
    helper.rt.launch(mod["softmax_rows"], rows, 128, [din, dout, rows, cols], shared=(cols + 32) * 4)
    z = 2.0 * x.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(helper.get(dout, f32, count).reshape(rows, cols), e / e.sum(axis=1, keepdims=True),
                               rtol=2e-5)


def test_streams_events_with_pointer_offsets(helper):
    mod = helper.module("streams_events")
    n, chunks = 2_000, 3
    x = ((np.arange(n) % 64 - 32) / 16).astype(f32)
    din, dout = helper.empty(4 * n), helper.empty(4 * n)
    helper.rt.memset(dout, 0, 4 * n)
    chunk = (n + chunks - 1) // chunks
    for k in range(chunks):
        off = k * chunk
        length = min(chunk, n - off)
        helper.rt.memcpy_htod(din.addr + 4 * off, x[off:off + length])
        helper.rt.launch(mod["poly_kernel"], (length + 255) // 256, 256,
                         [din + 4 * off, dout + 4 * off, length, 0.25, -1.0, 0.5])
        helper.rt.launch(mod["scale_kernel"], (length + 255) // 256, 256, [dout.addr + 4 * off, length, 2.0])
    assert np.array_equal(helper.get(dout, f32, n), 2 * ((f32(0.5) * x - 1) * x + f32(0.25)))


@pytest.mark.parametrize("ctype,dtype,bs", [("float", np.float32, 128), ("double", np.float64, 256)])
def test_template_launch(helper, ctype, dtype, bs):
    mod = helper.module("template_launch",
                        instantiate=[f"axpy_kernel<{ctype}>", f"sum_squares_kernel<{ctype}, {bs}>"])
    n = 2_001
    blocks = (n + bs - 1) // bs
    x = (0.5 * (np.arange(n) % 9 - 4)).astype(dtype)
    y = (0.25 * (np.arange(n) % 4)).astype(dtype)
    dx, dy, dp = helper.put(x), helper.put(y), helper.empty(blocks * x.itemsize)
    helper.rt.launch(mod[f"axpy_kernel<{ctype}>"], blocks, bs, [1.5, dx, dy, n])
    helper.rt.launch(mod[f"sum_squares_kernel<{ctype}, {bs}>"], blocks, bs, [dy, dp, 0.5, n])
    ynew = dtype(1.5) * x + y
    assert np.array_equal(helper.get(dy, dtype, n), ynew)
    padded = np.zeros(blocks * bs, dtype)
    padded[:n] = 0.5 * ynew * ynew
    assert np.array_equal(helper.get(dp, dtype, blocks), padded.reshape(blocks, bs).sum(axis=1))


def test_two_files_kernels_with_local_header(helper):
    mod = helper.module("two_files", "kernels.cu")
    n = 1_500
    u = dyadic(n, 11, 0.25, 5)
    du, dt, db = helper.put(u), helper.empty(4 * n), helper.put(dyadic(n, 3, 0.5, 1, 4))
    helper.rt.launch(mod["smooth_kernel"], (n + 255) // 256, 256, [du, dt, n])
    helper.rt.launch(mod["scale_add_kernel"], (n + 255) // 256, 256, [dt, db, 0.5, n])
    p = np.pad(u, 1, mode="edge")
    expected = 0.25 * (p[:-2] + 2 * u + p[2:]) + f32(0.5) * dyadic(n, 3, 0.5, 1, 4)
    assert np.array_equal(helper.get(dt, f32, n), expected.astype(f32))


def test_bicgk(helper):
    mod = helper.module("bicgk")
    nx, ny = 70, 51
    i, j = np.arange(nx)[:, None], np.arange(ny)
    A = (0.125 * ((7 * i + 3 * j + (i * j) % 5) % 9 - 3)).astype(f32)
    p, r = (0.25 * (np.arange(ny) % 5 - 1)).astype(f32), (0.5 * (np.arange(nx) % 7 - 2)).astype(f32)
    dA, dp, dr, dq, ds = helper.put(A), helper.put(p), helper.put(r), helper.empty(4 * nx), helper.empty(4 * ny)
    helper.rt.launch(mod["bicg_kernel_q"], (nx + 255) // 256, 256, [dA, dp, dq, nx, ny])
    helper.rt.launch(mod["bicg_kernel_s"], (ny + 255) // 256, 256, [dA, dr, ds, nx, ny])
    assert np.array_equal(helper.get(dq, f32, nx), (A.astype(np.float64) @ p).astype(f32))
    assert np.array_equal(helper.get(ds, f32, ny), (A.T.astype(np.float64) @ r).astype(f32))
