"""Access analysis of small in-memory kernels: constructs, must/may, and the reasons given
for kernels that cannot be partitioned. Each exact map is also checked against a brute-force
run (isl and JIT enumerators) on a few launches."""

from __future__ import annotations

import random

import pytest

from runtime.access import Box, KernelAccess, Launch
from runtime.access.islmaps import merge_ranges
from s2s.analysis.kernel.access import analyze_unit
from testsuite.access.kernel_eval import run_threads

HEAD = "#include <cuda_runtime.h>\n"


def analyse(load_source, text: str):
    loaded = load_source(HEAD + text)
    assert loaded.ok, loaded.diagnostics
    bodies = loaded.model.kernel_bodies
    functions = {b.name: b for b in bodies if not b.is_global}
    models = analyze_unit(bodies)
    return models[0], next(b for b in bodies if b.is_global), functions


def check_brute_force(model, body, functions, scalars, jit=False, runs=3):
    access = KernelAccess.from_dict(model.to_dict())
    rng = random.Random(model.kernel)
    for _ in range(runs):
        grid, block = (rng.randint(1, 4), 1, 1), (rng.randint(1, 5), 1, 1)
        lo = rng.randrange(grid[0])
        box = ((lo, 0, 0), (rng.randint(lo + 1, grid[0]), 1, 1))
        seen = run_threads(body, functions, grid, block, scalars, box)
        for array in model.arrays:
            for mode, exact in (("read", array.read_exact), ("write", array.write_exact)):
                truth = merge_ranges((o, o + 1) for o in seen.get((array.name, mode), ()))
                got = getattr(access, f"{mode}_ranges")(array.name, Box(*box),
                                                        Launch(grid, block, scalars), jit=jit)
                if exact:
                    assert got == truth, (array.name, mode, grid, block, box)


def test_grid_stride_loop_is_exact(load_source):
    model, body, functions = analyse(load_source, """
__global__ void copy(const float *in, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * in[i];
}""")
    assert model.partitionable and model.array("out").write_exact
    check_brute_force(model, body, functions, {"n": 23}, jit=True)


def test_strided_write_and_division(load_source):
    model, body, functions = analyse(load_source, """
__global__ void spread(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[2 * i + 1] = in[i / 3] + in[(i % 4) + 8];
}""")
    assert model.partitionable, model.reason
    check_brute_force(model, body, functions, {"n": 13}, jit=True)


def test_device_function_is_inlined(load_source):
    model, body, functions = analyse(load_source, """
__device__ int clamp_index(int i, int n) { return i < n ? i : n - 1; }
__device__ void put(float *p, int k, float v) { p[k] = v; }
__global__ void gather(const float *in, float *out, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        put(out, i, in[clamp_index(i, n)]);
}""")
    assert model.partitionable and model.array("in").read_exact
    check_brute_force(model, body, functions, {"n": 6, "m": 11})


def test_data_dependent_guard_gives_a_may_write(load_source):
    model, body, functions = analyse(load_source, """
__global__ void positive(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f)
        out[i] = 1.0f;
}""")
    out = model.array("out")
    assert model.partitionable and not out.write_exact
    assert out.read is not None and not out.read_exact  # synced before the launch


def test_data_dependent_write_offset(load_source):
    model, _, _ = analyse(load_source, """
__global__ void scatter(const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[idx[i]] = 1.0f;
}""")
    assert not model.partitionable
    assert model.reason == "writes out at a data-dependent offset (line 6)"


def test_unknown_call_with_a_pointer(load_source):
    model, _, _ = analyse(load_source, """
__device__ void opaque(float *p);
__global__ void k(float *out) { opaque(out); }""")
    assert not model.partitionable
    assert model.reason.startswith("writes out at an offset that is not affine (passed to opaque())")


@pytest.mark.parametrize("index, verdict", [
    ("blockIdx.x / 2", "threads of different blocks write out[0]"),
    ("threadIdx.x", "threads of different blocks write out[0]"),
    ("blockIdx.x", None),
])
def test_cross_block_writes(load_source, index, verdict):
    model, _, _ = analyse(load_source, f"""
__global__ void k(float *out) {{ out[{index}] = 1.0f; }}""")
    assert model.reason == verdict
    assert model.partitionable == (verdict is None)


def test_one_block_writing_one_element_is_a_note(load_source):
    model, _, _ = analyse(load_source, """
__global__ void k(float *out) { if (threadIdx.x < 2) out[blockIdx.x] = 1.0f; }""")
    assert model.partitionable
    assert any("threads of one block" in note for note in model.notes)


def test_runtime_check_of_a_launch(load_source):
    model, _, _ = analyse(load_source, """
__global__ void k(float *out, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    out[x % w] = 1.0f;
}""")
    assert not model.partitionable  # the sample launches find a clash
    access = KernelAccess.from_dict(model.to_dict())
    assert access.launch_conflict(Launch((2, 1, 1), (4, 1, 1), {"w": 8})) is None
    assert access.launch_conflict(Launch((2, 1, 1), (4, 1, 1), {"w": 4})) is not None
