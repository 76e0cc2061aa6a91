"""The kernels of the transfer-fusion samples (issue 7) and the kernel-fusion samples (issue 8), run on
the cpu backend against references computed with numpy, as test_samples_cpu.py does for the others.

These samples are also run whole elsewhere (original against rewritten program, testsuite/transfers and
testsuite/fuse); those checks compare the tool with itself, these with an independent reference. Sizes are
small and awkward (not multiples of the block size, partial tiles); launch shapes are the samples' own
(block sizes their shared arrays assume). Inputs are dyadic, so sums of products are exact in float32 in
any order; divisions by non-powers of two and transcendental functions compare with a relative tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from rt_support import Helper, dyadic

from runtime.api import Runtime

f32, f64 = np.float32, np.float64


@pytest.fixture(scope="module")
def runtimes():
    return {"1dev": Runtime("cpu", 1, threads=2), "3dev": Runtime("cpu", 3, threads=2)}


@pytest.fixture(params=["1dev", "3dev"])
def helper(request, runtimes):
    """One device and three (whole-grid launches without an access model, data spread by the copies)."""
    return Helper(runtimes[request.param])


def matrix(rows, cols, scale=0.25, mod=9, shift=4, seed=0):
    i, j = np.arange(rows)[:, None], np.arange(cols)
    return (scale * ((3 * i + 5 * j + (i * j + seed) % 7) % mod - shift)).astype(f32)


def blocks(n, size=256):
    return (n + size - 1) // size


# ---- transfer-fusion samples ------------------------------------------------------------------------------

def test_horner(helper):
    """y = ((a3 x + a2) x + a1) x + a0 with one vmul and one vadd launch per step, as the sample."""
    mod, rt = helper.module("horner"), helper.rt
    n = 1_003
    x = dyadic(n, 5, 0.5, 2)
    coeffs = [dyadic(n, 7, 0.25, 3, seed) for seed in range(4)]
    dx, dy, dt = helper.put(x), helper.put(coeffs[3]), helper.empty(4 * n)
    y = coeffs[3]
    for a in reversed(coeffs[:3]):
        da = helper.put(a)
        rt.launch(mod["vmul"], blocks(n), 256, [n, dy, dx, dt])
        rt.launch(mod["vadd"], blocks(n), 256, [n, dt, da, dy])
        y = y * x + a
    assert np.array_equal(helper.get(dy, f32, n), y)


def test_cholesky_tile_kernels(helper):
    mod, rt = helper.module("cholesky_tiles"), helper.rt
    b = 19                                            # b*b = 361 threads: two blocks, the second partial
    L1, L2 = matrix(b, b, seed=1), matrix(b, b, 0.5, 5, 2, seed=3)
    A = matrix(b, b, 0.5, 11, 5, seed=2)
    dL1, dL2 = helper.put(L1), helper.put(L2)
    dsyrk, dgemm = helper.put(A), helper.put(A)
    rt.launch(mod["syrk_tile"], blocks(b * b), 256, [b, dL1, dsyrk])
    rt.launch(mod["gemm_tile"], blocks(b * b), 256, [b, dL1, dL2, dgemm])
    product = L1.astype(f64) @ L1.T
    lower = np.tril(np.ones((b, b), bool))
    syrk = np.where(lower, A - product, A).astype(f32)   # the upper triangle is left alone
    assert np.array_equal(helper.get(dsyrk, f32, b * b).reshape(b, b), syrk)
    assert np.array_equal(helper.get(dgemm, f32, b * b).reshape(b, b), (A - L1.astype(f64) @ L2.T).astype(f32))
    # TRSM: A <- A L^-T for a lower-triangular L with a power-of-two diagonal
    Ljj = (np.tril(matrix(b, b, 0.25, 5, 2, seed=4), -1) + 2 * np.eye(b)).astype(f32)
    dL, dA = helper.put(Ljj), helper.put(A)
    rt.launch(mod["trsm_tile"], blocks(b), 256, [b, dL, dA])
    expected = np.linalg.solve(Ljj.astype(f64), A.T.astype(f64)).T
    np.testing.assert_allclose(helper.get(dA, f32, b * b).reshape(b, b), expected, rtol=1e-5, atol=1e-5)


def test_block_matmul(helper):
    mod = helper.module("block_matmul")
    b = 19
    X, Y = matrix(b, b, seed=1), matrix(b, b, 0.5, 7, 3, seed=5)
    dX, dY, dP = helper.put(X), helper.put(Y), helper.empty(4 * b * b)
    helper.rt.launch(mod["gemm_block"], blocks(b * b), 256, [b, dX, dY, dP])
    assert np.array_equal(helper.get(dP, f32, b * b).reshape(b, b), (X.astype(f64) @ Y).astype(f32))


def test_cg_step_kernels(helper):
    mod, rt = helper.module("cg_steps"), helper.rt
    n = 1_001                                         # dot: one block striding 4 times, the last partial
    x, y, r = dyadic(n, 9, 0.25, 4), dyadic(n, 7, 0.5, 3, 1), dyadic(n, 5, 0.25, 2, 2)
    num, den = np.array([3.0], f32), np.array([-4.0], f32)
    dx, dy, dr = helper.put(x), helper.put(y), helper.put(r)
    dnum, dden, dout, dratio = helper.put(num), helper.put(den), helper.empty(4), helper.empty(4)
    rt.launch(mod["dot"], 1, 256, [n, dx, dy, dout])
    assert helper.get(dout, f32, 1)[0] == x.astype(f64) @ y
    rt.launch(mod["ratio"], 1, 1, [dnum, dden, dratio])
    assert helper.get(dratio, f32, 1)[0] == f32(-0.75)
    rt.launch(mod["axpy_ratio"], blocks(n), 256, [n, dnum, dden, dx, dy])
    y1 = y + f32(-0.75) * x
    assert np.array_equal(helper.get(dy, f32, n), y1)
    rt.launch(mod["axmy_ratio"], blocks(n), 256, [n, dnum, dden, dx, dy])
    assert np.array_equal(helper.get(dy, f32, n), y1 - f32(-0.75) * x)
    rt.launch(mod["update_p"], blocks(n), 256, [n, dratio, dr, dx])
    assert np.array_equal(helper.get(dx, f32, n), r + f32(-0.75) * x)


# ---- kernel-fusion samples: BLAS sequences ----------------------------------------------------------------

def test_axpydot(helper):
    mod, rt = helper.module("axpydot"), helper.rt
    n = 3_001
    w, v, u = dyadic(n, 9, 0.25, 4), dyadic(n, 5, 0.5, 2, 1), dyadic(n, 7, 0.125, 3, 2)
    dw, dv, du, dz = helper.put(w), helper.put(v), helper.put(u), helper.empty(4 * n)
    dr = helper.put(np.zeros(1, f32))
    rt.launch(mod["axpy_kernel"], blocks(n), 256, [dw, dv, dz, 0.5, n])
    rt.launch(mod["dot_kernel"], blocks(n), 256, [dz, du, dr, n])
    z = w - f32(0.5) * v
    assert np.array_equal(helper.get(dz, f32, n), z)
    assert helper.get(dr, f32, 1)[0] == z.astype(f64) @ u


@pytest.mark.parametrize("sample, kernels", [
    ("atax", {"gemv_rows", "gemv_cols"}), ("sgemv", {"gemv_rows", "axpby_kernel"}),
    ("sgemvt", {"gemv_rows", "gemv_cols", "axpby_kernel"}), ("gesummv", {"gemv_rows", "axpby_kernel"}),
])
def test_gemv_family(helper, sample, kernels):
    """Each sample file carries its own copy of the kernels: each copy is checked."""
    mod, rt = helper.module(sample), helper.rt
    m, n = 300, 45                                    # 300 rows: two blocks for the row kernel
    A = matrix(m, n)
    x, y = dyadic(n, 7, 0.5, 3), dyadic(m, 5, 0.25, 2, 1)
    dA, dx, dy = helper.put(A), helper.put(x), helper.put(y)
    if "gemv_rows" in kernels:
        dt = helper.empty(4 * m)
        rt.launch(mod["gemv_rows"], blocks(m), 256, [dA, dx, dt, 0.5, m, n])
        assert np.array_equal(helper.get(dt, f32, m), (0.5 * (A.astype(f64) @ x)).astype(f32))
    if "gemv_cols" in kernels:
        dt = helper.empty(4 * n)
        rt.launch(mod["gemv_cols"], blocks(n), 256, [dA, dy, dt, 2.0, m, n])
        assert np.array_equal(helper.get(dt, f32, n), (2.0 * (A.T.astype(f64) @ y)).astype(f32))
    if "axpby_kernel" in kernels:
        z, dz = dyadic(m, 9, 0.25, 4, 3), helper.empty(4 * m)
        rt.launch(mod["axpby_kernel"], blocks(m), 256, [dy, helper.put(z), dz, 1.5, -0.25, m])
        assert np.array_equal(helper.get(dz, f32, m), f32(1.5) * y + f32(-0.25) * z)


def test_vector_kernels(helper):
    """vadd, waxpby (w = alpha x; w += beta y) and sscal, each from its own sample file."""
    rt, n = helper.rt, 1_000
    x, y = dyadic(n, 9, 0.25, 4), dyadic(n, 5, 0.5, 2, 1)
    dx, dy, out = helper.put(x), helper.put(y), helper.empty(4 * n)
    rt.launch(helper.module("vadd")["vadd_kernel"], blocks(n), 256, [dx, dy, out, n])
    assert np.array_equal(helper.get(out, f32, n), x + y)
    waxpby = helper.module("waxpby")
    rt.launch(waxpby["scal_copy"], blocks(n), 256, [dx, out, 0.5, n])
    rt.launch(waxpby["axpy_inplace"], blocks(n), 256, [dy, out, -1.5, n])
    assert np.array_equal(helper.get(out, f32, n), f32(0.5) * x + f32(-1.5) * y)
    rt.launch(helper.module("sscal")["sscal_kernel"], blocks(n), 256, [dx, 0.75, n])
    assert np.array_equal(helper.get(dx, f32, n), f32(0.75) * x)


def test_madd(helper):
    mod = helper.module("madd")
    m, n = 37, 45                                     # partial 32 x 8 tiles in both directions
    A, B = matrix(m, n, seed=1), matrix(m, n, 0.5, 7, 3, seed=2)
    dA, dB, dC = helper.put(A), helper.put(B), helper.empty(4 * m * n)
    helper.rt.launch(mod["madd_kernel"], ((n + 31) // 32, (m + 7) // 8), (32, 8), [dA, dB, dC, m, n])
    assert np.array_equal(helper.get(dC, f32, m * n).reshape(m, n), A + B)


def test_bicgk_tiled(helper):
    """q = A p and s = A^T r from 32 x 8 tiles reduced in shared memory and added with atomicAdd."""
    mod, rt = helper.module("bicgk_tiled"), helper.rt
    m, n = 37, 75
    A = matrix(m, n, 0.125, 9, 3)
    p, r = dyadic(n, 5, 0.25, 1), dyadic(m, 7, 0.5, 2, 1)
    dA, dp, dr = helper.put(A), helper.put(p), helper.put(r)
    dq, ds = helper.put(np.zeros(m, f32)), helper.put(np.zeros(n, f32))
    grid = ((n + 31) // 32, (m + 7) // 8)
    rt.launch(mod["gemv_tile"], grid, (32, 8), [dA, dp, dq, m, n])
    rt.launch(mod["gemvt_tile"], grid, (32, 8), [dA, dr, ds, m, n])
    assert np.array_equal(helper.get(dq, f32, m), (A.astype(f64) @ p).astype(f32))
    assert np.array_equal(helper.get(ds, f32, n), (A.T.astype(f64) @ r).astype(f32))


# ---- kernel-fusion samples: row-wise normalisations and element-wise chains ------------------------------

def test_softmax_chain(helper):
    mod, rt = helper.module("softmax_chain"), helper.rt
    rows, cols = 7, 300                               # 128 threads per row: strides of 3, the last partial
    x = matrix(rows, cols, 0.125, 29, 14)
    dx, dm, ds = helper.put(x), helper.empty(4 * rows), helper.empty(4 * rows)
    de, dy = helper.empty(x.nbytes), helper.empty(x.nbytes)
    rt.launch(mod["row_max"], rows, 128, [dx, dm, cols])
    rt.launch(mod["exp_sum"], rows, 128, [dx, dm, de, ds, cols])
    rt.launch(mod["normalize"], rows, 128, [de, ds, dy, cols])
    e = np.exp(x.astype(f64) - x.max(axis=1, keepdims=True))
    assert np.array_equal(helper.get(dm, f32, rows), x.max(axis=1))
    np.testing.assert_allclose(helper.get(de, f32, rows * cols).reshape(rows, cols), e, rtol=1e-6)
    np.testing.assert_allclose(helper.get(ds, f32, rows), e.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(helper.get(dy, f32, rows * cols).reshape(rows, cols),
                               e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_layernorm(helper):
    mod, rt = helper.module("layernorm"), helper.rt
    rows, cols, eps = 7, 300, 1e-5
    x = matrix(rows, cols, 0.25, 13, 5)
    gamma, beta = dyadic(cols, 5, 0.25, -2), dyadic(cols, 7, 0.125, 3, 1)
    dx, dg, db = helper.put(x), helper.put(gamma), helper.put(beta)
    dmean, drstd, dy = helper.empty(4 * rows), helper.empty(4 * rows), helper.empty(x.nbytes)
    rt.launch(mod["row_mean"], rows, 128, [dx, dmean, cols])
    rt.launch(mod["row_rstd"], rows, 128, [dx, dmean, drstd, eps, cols])
    rt.launch(mod["apply_norm"], rows, 128, [dx, dmean, drstd, dg, db, dy, cols])
    mean = x.astype(f64).mean(axis=1)
    rstd = 1 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + eps)
    np.testing.assert_allclose(helper.get(dmean, f32, rows), mean, rtol=1e-6)
    np.testing.assert_allclose(helper.get(drstd, f32, rows), rstd, rtol=1e-5)
    expected = (x - mean[:, None]) * rstd[:, None] * gamma + beta
    np.testing.assert_allclose(helper.get(dy, f32, rows * cols).reshape(rows, cols), expected,
                               rtol=1e-5, atol=1e-6)


def test_bias_gelu(helper):
    mod, rt = helper.module("bias_gelu"), helper.rt
    rows, cols = 9, 77
    total = rows * cols
    x, b = matrix(rows, cols, 0.25, 17, 8), dyadic(cols, 9, 0.125, 4)
    dx, db, dh, dy = helper.put(x), helper.put(b), helper.empty(x.nbytes), helper.empty(x.nbytes)
    rt.launch(mod["bias_add"], blocks(total), 256, [dx, db, dh, cols, total])
    rt.launch(mod["gelu_kernel"], blocks(total), 256, [dh, dy, total])
    h = x + b                                         # b[i % cols]: the bias of the column
    assert np.array_equal(helper.get(dh, f32, total).reshape(rows, cols), h)
    v = h.astype(f64)
    gelu = 0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v ** 3)))
    np.testing.assert_allclose(helper.get(dy, f32, total).reshape(rows, cols), gelu, rtol=1e-5, atol=1e-6)
