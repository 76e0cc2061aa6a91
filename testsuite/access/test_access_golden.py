"""Golden access maps of every CUDA sample kernel, compared mathematically.

Each expected relation is written by hand below (``X = bdx*bx + tx``, ``Y = bdy*by + ty``
spelled out; products expanded, as the map notation requires) and compared with the analysed
one by isl ``is_equal`` after both are instantiated with each sample launch of
``s2s.isl_helpers`` and one large 1-D launch. ``None`` means "no such access". The verdicts
(partitionable, reason prefix, must/may) are golden too.
"""

from __future__ import annotations

import re

import pytest

from s2s import isl_helpers
from s2s.analysis.kernel.interp import THREAD_DIMS

X = "bdx*bx + tx"
Y = "bdy*by + ty"
IN_N = f"i = {X} and {X} < n"
IN_TOTAL = f"i = {X} and {X} < total"
#: element (Y, X) of an m x n row-major matrix, 2-D grid, guarded by Y < m and X < n
IN_MN = f"i = bdy*by*n + n*ty + {X} and {Y} < m and {X} < n"
#: one block per row: thread tx visits columns tx, tx + bdx, ... of row bx
ROW = "exists (t : t >= 0 and i = bx*cols + bdx*t + tx and bdx*t + tx < cols)"
COLUMN = "exists (t : t >= 0 and i = bdx*t + tx and i < cols)"
#: t[i] = alpha * sum_j A[i][j] x[j], one thread per row i < m
GEMV_ROWS = {"A": (f"exists (j : 0 <= j < n and i = bdx*bx*n + n*tx + j) and {X} < m", None),
             "x": (f"0 <= i < n and {X} < m", None), "t": (None, f"i = {X} and {X} < m")}
#: t[j] = alpha * sum_i A[i][j] y[i], one thread per column j < n
GEMV_COLS = {"A": (f"exists (k : 0 <= k < m and i = n*k + {X}) and {X} < n", None),
             "y": (f"0 <= i < m and {X} < n", None), "t": (None, IN_N)}
AXPBY = {"x": (IN_N, None), "y": (IN_N, None), "out": (None, IN_N)}

#: kernel -> {array: (read, write)} and kernel -> (partitionable, reason prefix, may arrays)
MAPS = {
    "saxpy/saxpy": {"x": (IN_N, None), "y": (IN_N, IN_N)},
    "elementwise_chain/scale_kernel": {"in": (IN_N, None), "out": (None, IN_N)},
    "elementwise_chain/add_kernel": {"x": (IN_N, None), "y": (IN_N, None), "out": (None, IN_N)},
    "elementwise_chain/mul_kernel": {"x": (IN_N, None), "y": (IN_N, None), "out": (None, IN_N)},
    "elementwise_chain/relu_kernel": {"in": (IN_N, None), "out": (None, IN_N)},
    "elementwise_chain/shift_kernel": {"x": (IN_N, IN_N)},
    "elementwise_chain/clamp_kernel": {"in": (IN_N, None), "out": (None, IN_N)},
    "streams_events/poly_kernel": {"in": (IN_N, None), "out": (None, IN_N)},
    "streams_events/scale_kernel": {"v": (IN_N, IN_N)},
    "macro_launch/iota_kernel": {"x": (None, IN_N)},
    "macro_launch/axpby_kernel": {"x": (IN_N, None), "y": (IN_N, None), "out": (None, IN_N)},
    "macro_launch/square_kernel": {"v": (IN_N, IN_N)},
    "macro_launch/histogram_kernel": {
        "v": (IN_N, None),
        "hist": (f"0 <= i < 16 and {X} < n", f"0 <= i < 16 and {X} < n")},
    "softmax_warp/scale_logits": {"x": (IN_N, IN_N)},
    "softmax_warp/softmax_rows": {
        "in": ("exists (t : t >= 0 and i = bx*cols + bdx*t + tx and bdx*t + tx < cols) "
               "and bx < rows", None),
        "out": (None, "exists (t : t >= 0 and i = bx*cols + bdx*t + tx and bdx*t + tx < cols) "
                      "and bx < rows")},
    "template_launch/axpy_kernel": {"x": (IN_N, None), "y": (IN_N, IN_N)},
    "template_launch/sum_squares_kernel": {"y": ("i < n", None),
                                           "partial": (None, "i = bx and tx = 0")},
    "two_files/smooth_kernel": {
        "in": (f"{X} < n and (i = {X} or (i = {X} - 1 and {X} > 0) or "
               f"(i = {X} + 1 and {X} < n - 1))", None),
        "out": (None, IN_N)},
    "two_files/scale_add_kernel": {"a": (IN_N, IN_N), "b": (IN_N, None)},
    "bicgk/bicg_kernel_q": {
        "A": (f"exists (j : 0 <= j < ny and i = bdx*bx*ny + ny*tx + j) and {X} < nx", None),
        "p": (f"0 <= i < ny and {X} < nx", None),
        "q": (None, f"i = {X} and {X} < nx")},
    "bicgk/bicg_kernel_s": {
        "A": (f"exists (k : 0 <= k < nx and i = ny*k + {X}) and {X} < ny", None),
        "r": (f"0 <= i < nx and {X} < ny", None),
        "s": (None, f"i = {X} and {X} < ny")},
    "block_reduction/block_sum_atomic": {"in": (IN_N, None),
                                         "sum": ("i = 0 and tx = 0", "i = 0 and tx = 0")},
    "block_reduction/block_sum_partial": {
        "in": ("exists (t : t >= 0 and (i = 2*bdx*gdx*t + 2*bdx*bx + tx or "
               "i = 2*bdx*gdx*t + 2*bdx*bx + bdx + tx) and i < n and "
               "2*bdx*gdx*t + 2*bdx*bx + tx < n)", None),
        "partial": (None, "i = bx and tx = 0")},
    "block_reduction/final_sum": {
        "partial": ("exists (t : t >= 0 and i = bdx*t + tx and i < count)", None),
        "out": (None, "i = 0 and tx = 0")},
    "gemver/ger2_kernel": {
        "A": (f"i = bdy*by*n + n*ty + {X} and {X} < n and {Y} < n", None),
        "B": (None, f"i = bdy*by*n + n*ty + {X} and {X} < n and {Y} < n"),
        "u1": (f"i = {Y} and {X} < n and {Y} < n", None),
        "v1": (f"i = {X} and {X} < n and {Y} < n", None),
        "u2": (f"i = {Y} and {X} < n and {Y} < n", None),
        "v2": (f"i = {X} and {X} < n and {Y} < n", None)},
    "gemver/gemv_t_kernel": {
        "B": (f"exists (j : 0 <= j < n and i = n*j + {X}) and {X} < n", None),
        "y": (f"0 <= i < n and {X} < n", None), "x": (None, IN_N)},
    "gemver/vec_add_kernel": {"x": (IN_N, IN_N), "z": (IN_N, None)},
    "gemver/gemv_kernel": {
        "B": (f"exists (j : 0 <= j < n and i = bdx*bx*n + n*tx + j) and {X} < n", None),
        "x": (f"0 <= i < n and {X} < n", None), "w": (None, IN_N)},
    "hotspot/hotspot_step": {
        "power": (f"i = bdy*by*width + ty*width + {X} and {X} < width and {Y} < height", None),
        "temp_src": (f"{X} < width and {Y} < height and ("
                     f"i = bdy*by*width + ty*width + {X} or "
                     f"(i = bdy*by*width + ty*width + {X} - 1 and {X} > 0) or "
                     f"(i = bdy*by*width + ty*width + {X} + 1 and {X} < width - 1) or "
                     f"(i = bdy*by*width + ty*width + {X} - width and {Y} > 0) or "
                     f"(i = bdy*by*width + ty*width + {X} + width and {Y} < height - 1))", None),
        "temp_dst": (None, f"i = bdy*by*width + ty*width + {X} and {X} < width and "
                           f"{Y} < height")},
    "matmul_tiled/matmul_tiled": {
        "A": ("exists (t : t >= 0 and i = 16*K*by + K*ty + 16*t + tx and 16*by + ty < M and "
              "16*t + tx < K)", None),
        "B": ("exists (t : t >= 0 and i = 16*N*t + N*ty + 16*bx + tx and 16*t + ty < K and "
              "16*bx + tx < N)", None),
        "C": (None, "i = 16*N*by + N*ty + 16*bx + tx and 16*by + ty < M and 16*bx + tx < N")},
    "nbody/compute_forces": {
        "pos": (f"({IN_N}) or exists (t : t >= 0 and i = 256*t + tx and i < n)", None),
        "acc": (None, IN_N)},
    "nbody/integrate": {"pos_in": (IN_N, None), "pos_out": (None, IN_N),
                        "vel": (IN_N, IN_N), "acc": (IN_N, None)},
    # samples of s2s transfers (issue 7): 1-D grids over b x b tiles, t = X, row t/b, column t%b
    "horner/vmul": {"y": (IN_N, None), "x": (IN_N, None), "t": (None, IN_N)},
    "horner/vadd": {"t": (IN_N, None), "a": (IN_N, None), "y": (None, IN_N)},
    "block_matmul/gemm_block": {
        "X": (f"exists (r, c, k : {X} = b*r + c and 0 <= c < b and 0 <= k < b and i = b*r + k) "
              f"and {X} < b*b", None),
        "Y": (f"exists (r, c, k : {X} = b*r + c and 0 <= c < b and 0 <= k < b and i = b*k + c) "
              f"and {X} < b*b", None),
        "P": (None, f"i = {X} and {X} < b*b")},
    "cholesky_tiles/syrk_tile": {
        "L": (f"exists (r, c, k : {X} = b*r + c and 0 <= c < b and c <= r and 0 <= k < b and "
              f"(i = b*r + k or i = b*c + k)) and {X} < b*b", None),
        "A": (f"i = {X} and {X} < b*b and exists (r, c : {X} = b*r + c and 0 <= c < b and c <= r)",
              f"i = {X} and {X} < b*b and exists (r, c : {X} = b*r + c and 0 <= c < b and c <= r)")},
    "cholesky_tiles/gemm_tile": {
        "Li": (f"exists (r, c, k : {X} = b*r + c and 0 <= c < b and 0 <= k < b and i = b*r + k) "
               f"and {X} < b*b", None),
        "Lj": (f"exists (r, c, k : {X} = b*r + c and 0 <= c < b and 0 <= k < b and i = b*c + k) "
               f"and {X} < b*b", None),
        "A": (f"i = {X} and {X} < b*b", f"i = {X} and {X} < b*b")},
    "cholesky_tiles/trsm_tile": {
        "Ljj": (f"exists (j, k : 0 <= k <= j < b and i = b*j + k) and {X} < b", None),
        "A": (f"exists (j : 0 <= j < b and i = b*({X}) + j) and {X} < b",
              f"exists (j : 0 <= j < b and i = b*({X}) + j) and {X} < b")},
    "cg_steps/dot": {"x": ("exists (t : t >= 0 and i = 256*t + tx and i < n)", None),
                     "y": ("exists (t : t >= 0 and i = 256*t + tx and i < n)", None),
                     "out": (None, "i = 0 and tx = 0")},
    "cg_steps/axpy_ratio": {"num": (f"i = 0 and {X} < n", None), "den": (f"i = 0 and {X} < n", None),
                            "x": (IN_N, None), "y": (IN_N, IN_N)},
    "cg_steps/axmy_ratio": {"num": (f"i = 0 and {X} < n", None), "den": (f"i = 0 and {X} < n", None),
                            "x": (IN_N, None), "y": (IN_N, IN_N)},
    "cg_steps/ratio": {"num": ("i = 0 and bx = 0 and tx = 0", None),
                       "den": ("i = 0 and bx = 0 and tx = 0", None),
                       "out": (None, "i = 0 and bx = 0 and tx = 0")},
    "cg_steps/update_p": {"beta": (f"i = 0 and {X} < n", None), "r": (IN_N, None), "p": (IN_N, IN_N)},
    # samples of s2s fuse (issue 8): BLAS sequences (one thread per element, row or column) and
    # row-wise normalisations (one block per row, threads striding over the columns)
    **{f"{sample}/gemv_rows": GEMV_ROWS for sample in ("atax", "sgemv", "sgemvt", "gesummv")},
    **{f"{sample}/gemv_cols": GEMV_COLS for sample in ("atax", "sgemvt")},
    **{f"{sample}/axpby_kernel": AXPBY for sample in ("sgemv", "sgemvt", "gesummv")},
    "axpydot/axpy_kernel": {"w": (IN_N, None), "v": (IN_N, None), "z": (None, IN_N)},
    "axpydot/dot_kernel": {"z": (IN_N, None), "u": (IN_N, None),
                           "r": ("i = 0 and tx = 0", "i = 0 and tx = 0")},
    "vadd/vadd_kernel": {"x": (IN_N, None), "y": (IN_N, None), "out": (None, IN_N)},
    "waxpby/scal_copy": {"x": (IN_N, None), "w": (None, IN_N)},
    "waxpby/axpy_inplace": {"y": (IN_N, None), "w": (IN_N, IN_N)},
    "sscal/sscal_kernel": {"x": (IN_N, IN_N)},
    "madd/madd_kernel": {"A": (IN_MN, None), "B": (IN_MN, None), "C": (None, IN_MN)},
    "bicgk_tiled/gemv_tile": {
        "A": (IN_MN, None), "p": (f"i = {X} and {X} < n and {Y} < m", None),
        "q": (f"i = {Y} and tx = 0 and {Y} < m", f"i = {Y} and tx = 0 and {Y} < m")},
    "bicgk_tiled/gemvt_tile": {
        "A": (IN_MN, None), "r": (f"i = {Y} and {X} < n and {Y} < m", None),
        "s": (f"i = {X} and ty = 0 and {X} < n", f"i = {X} and ty = 0 and {X} < n")},
    "softmax_chain/row_max": {"x": (ROW, None), "m": (None, "i = bx and tx = 0")},
    "softmax_chain/exp_sum": {"x": (ROW, None), "m": ("i = bx", None), "e": (None, ROW),
                              "s": (None, "i = bx and tx = 0")},
    "softmax_chain/normalize": {"e": (ROW, None), "s": ("i = bx", None), "y": (None, ROW)},
    "layernorm/row_mean": {"x": (ROW, None), "mean": (None, "i = bx and tx = 0")},
    "layernorm/row_rstd": {"x": (ROW, None), "mean": ("i = bx", None),
                           "rstd": (None, "i = bx and tx = 0")},
    "layernorm/apply_norm": {"x": (ROW, None), "mean": ("i = bx", None), "rstd": ("i = bx", None),
                             "gamma": (COLUMN, None), "beta": (COLUMN, None), "y": (None, ROW)},
    "bias_gelu/bias_add": {
        "x": (IN_TOTAL, None),
        "b": (f"exists (q : {X} = cols*q + i and 0 <= i < cols) and {X} < total", None),
        "h": (None, IN_TOTAL)},
    "bias_gelu/gelu_kernel": {"h": (IN_TOTAL, None), "y": (None, IN_TOTAL)},
}

VERDICTS = {
    "block_reduction/block_sum_atomic": (False, "threads of different blocks write sum[0] "
                                                "(atomicAdd reduction)"),
    "block_reduction/final_sum": (False, "threads of different blocks write out[0]"),
    "macro_launch/histogram_kernel": (False, "writes hist at a data-dependent offset (line 74)"),
    "cg_steps/dot": (False, "threads of different blocks write out[0]"),
    "axpydot/dot_kernel": (False, "threads of different blocks write r[0] (atomicAdd reduction)"),
    # every q[i] (s[j]) is a witness: the blocks of one tile row (column) all add to it
    "bicgk_tiled/gemv_tile": (False, "threads of different blocks write q[{element}] "
                                     "(atomicAdd reduction)"),
    "bicgk_tiled/gemvt_tile": (False, "threads of different blocks write s[{element}] "
                                      "(atomicAdd reduction)"),
}
#: Arrays whose read map over-approximates (may) and kernels whose writes are may.
MAY_READS = {("macro_launch/histogram_kernel", "hist"), ("template_launch/sum_squares_kernel", "y")}
MAY_WRITES = {("macro_launch/histogram_kernel", "hist")}
BIG_1D = {"gdx": 40, "gdy": 1, "gdz": 1, "bdx": 256, "bdy": 1, "bdz": 1}


def _expected(model, name: str, body: str | None) -> str | None:
    if body is None:
        return None
    domain = " and ".join(f"0 <= {d} < {g}" for d, g in zip(
        THREAD_DIMS, ("gdx", "gdy", "gdz", "bdx", "bdy", "bdz"), strict=True))
    return (f"[{', '.join(model.map_params)}] -> {{ [{', '.join(THREAD_DIMS)}] -> {name}[i] : "
            f"({body}) and {domain} }}")


def _launches(model, text: str):
    values = isl_helpers.sample_values(text)
    big = dict(BIG_1D)
    big.update({p: 1000 + 17 * k for k, p in enumerate(model.map_params[6:])})
    return values + [{k: big[k] for k in values[0]}]


def test_every_sample_kernel_has_goldens(sample_kernels):
    assert sorted(MAPS) == sorted(sample_kernels)


@pytest.mark.parametrize("key", sorted(MAPS))
def test_golden_maps(sample_kernels, key):
    model = sample_kernels[key][2]
    assert sorted(a.name for a in model.arrays) == sorted(MAPS[key])
    for array in model.arrays:
        for mode, got, body in (("read", array.read, MAPS[key][array.name][0]),
                                ("write", array.write, MAPS[key][array.name][1])):
            want = _expected(model, array.name, body)
            assert (got is None) == (want is None), (key, array.name, mode)
            if want is None:
                continue
            for values in _launches(model, want):
                assert isl_helpers.maps_equal(got, want, values), (key, array.name, mode, values)
        assert array.read_exact == ((key, array.name) not in MAY_READS), (key, array.name)
        assert array.write_exact == ((key, array.name) not in MAY_WRITES), (key, array.name)


@pytest.mark.parametrize("key", sorted(MAPS))
def test_verdicts(sample_kernels, key):
    model = sample_kernels[key][2]
    partitionable, reason = VERDICTS.get(key, (True, None))
    assert model.partitionable == partitionable, model.reason
    if reason is not None and "{element}" in reason:  # the witness element is any of several
        pattern = re.escape(reason).replace(re.escape("{element}"), r"\d+")
        assert re.fullmatch(pattern, model.reason), model.reason
    else:
        assert model.reason == reason
