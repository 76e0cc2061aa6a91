"""Access analysis of two forms issue 29 (item 5) found kept on one device:

* array parameters with rows, ``float c[][NY][NX]`` (and ``float (*c)[NX]``): ``c[z][y][x]``
  is the flat element ``(z * NY + y) * NX + x`` of one-scalar elements;
* writes whose injectivity only the launch's sizes decide (``out[y * width + x]`` with no
  guard, a plane offset advanced by ``nx * ny`` in a loop): the sample launches find a
  clash, large sizes do not, so the model says the sizes decide (``sizes_decide``) and the
  runtime checks each launch (``KernelAccess.launch_conflict``).
"""

from __future__ import annotations

from runtime.access import Box, KernelAccess, Launch
from testsuite.access.test_access_analysis import analyse, check_brute_force

ROWS = """
#define NY 3
#define NX 4
__global__ void smooth(const float c[][NY][NX], float out[][NY][NX], int nz) {
    int x = threadIdx.x, y = blockIdx.x % NY, z = blockIdx.x / NY;
    if (x >= NX || z >= nz) return;
    out[z][y][x] = c[z][y][x] + (x > 0 ? c[z][y][x - 1] : 0.0f);
}"""


def test_rows_of_an_array_parameter_are_flat_scalar_elements(load_source):
    model, body, functions = analyse(load_source, ROWS)
    assert model.partitionable, model.reason
    assert model.array("out").elem_size == 4 and model.array("c").elem_size == 4
    assert model.array("out").write_exact and model.array("c").read_exact
    check_brute_force(model, body, functions, {"nz": 2}, jit=True)
    access = KernelAccess.from_dict(model.to_dict())
    block_five = Launch((6, 1, 1), (4, 1, 1), {"nz": 2})    # z = 1, y = 2: element 20 + x
    assert access.write_ranges("out", Box((5, 0, 0), (6, 1, 1)), block_five) == [(20, 24)]


def test_a_row_used_as_a_pointer_is_its_first_element(load_source):
    model, _, _ = analyse(load_source, """
__device__ void fill(float *row, int x) { row[x] = 1.0f; }
__global__ void k(float (*rows)[8]) { fill(rows[blockIdx.x], threadIdx.x); }""")
    assert model.partitionable, model.reason
    access = KernelAccess.from_dict(model.to_dict())
    launch = Launch((3, 1, 1), (8, 1, 1), {})
    assert access.write_ranges("rows", Box((2, 0, 0), (3, 1, 1)), launch) == [(16, 24)]


def test_local_two_dimensional_arrays_keep_their_rules(load_source):
    model, _, _ = analyse(load_source, """
__global__ void k(float *out) {
    __shared__ float tile[4][5];
    float regs[2][2];
    tile[threadIdx.x][1] = 1.0f; regs[1][1] = 2.0f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x][1] + regs[1][1];
}""")
    assert model.partitionable and [a.name for a in model.arrays] == ["out"]


def test_sizes_decide_an_unguarded_row_major_write(load_source):
    model, _, _ = analyse(load_source, """
__global__ void k(const float *in, float *out, int width) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    out[blockIdx.y * width + x] = in[blockIdx.y * width + x];
}""")
    assert not model.partitionable
    assert model.sizes_decide == (f"on a sample launch {model.reason}",)
    access = KernelAccess.from_dict(model.to_dict())
    assert access.launch_conflict(Launch((4, 3, 1), (16, 1, 1), {"width": 64})) is None
    assert access.launch_conflict(Launch((4, 3, 1), (16, 1, 1), {"width": 32})) is not None


def test_sizes_decide_a_plane_offset_advanced_in_a_loop(load_source):
    model, _, _ = analyse(load_source, """
__global__ void k(const float *in, float *out, int nx, int ny, int nz) {
    int i = blockDim.x * blockIdx.x + threadIdx.x, j = blockDim.y * blockIdx.y + threadIdx.y;
    int c = i + j * nx, xy = nx * ny;
    for (int k = 0; k < nz; ++k) { out[c] = 2.0f * in[c]; c += xy; }
}""")
    assert model.sizes_decide and model.array("out").write_exact
    access = KernelAccess.from_dict(model.to_dict())
    exact = Launch((2, 2, 1), (8, 4, 1), {"nx": 16, "ny": 8, "nz": 3})
    assert access.launch_conflict(exact) is None
    assert access.launch_conflict(Launch((2, 2, 1), (8, 4, 1), {"nx": 8, "ny": 8, "nz": 3}))


def test_sizes_decide_a_flag_only_block_zero_writes_on_the_samples(load_source):
    """Rodinia bfs's Kernel2: ``*g_over = true`` under ``tid < n`` with 512-thread blocks;
    on the sample launches (n small) only block 0 writes it, with large n every block does:
    partitionable, but the sizes decide (the runtime runs such a launch whole)."""
    model, _, _ = analyse(load_source, """
__global__ void k(bool *mask, bool *over, int n) {
    int tid = blockIdx.x * 512 + threadIdx.x;
    if (tid < n && mask[tid]) { mask[tid] = false; *over = true; }
}""")
    assert model.partitionable
    assert model.sizes_decide == ("on a launch with large sizes threads of different blocks "
                                  "write over[0]",)
    access = KernelAccess.from_dict(model.to_dict())
    assert access.launch_conflict(Launch((1, 1, 1), (512, 1, 1), {"n": 256})) is None
    assert access.launch_conflict(Launch((2, 1, 1), (512, 1, 1), {"n": 1000})) is not None


def test_sizes_do_not_decide_a_write_every_block_makes(load_source):
    for index in ("threadIdx.x", "blockIdx.x / 2 + n"):
        model, _, _ = analyse(load_source, f"""
__global__ void k(float *out, int n) {{ out[{index}] = 1.0f; }}""")
        assert not model.partitionable and model.sizes_decide == (), index


def test_no_exit_value_when_the_body_moves_the_bound(load_source):
    model, _, _ = analyse(load_source, """
__global__ void k(float *out, int n, int stride) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int m = n;
    for (int j = 0; j < m; ++j) { c += stride; m = m - 1; }
    out[c] = 1.0f;
}""")
    assert not model.partitionable and "data-dependent" in model.reason


def test_a_write_after_a_counted_loop_keeps_its_exact_offset(load_source):
    model, body, functions = analyse(load_source, """
__global__ void k(const float *in, float *out, int n, int planes) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    for (int z = 1; z < planes - 1; ++z)
        c += n;
    out[c] = in[c];
}""")
    assert model.partitionable and model.array("out").write_exact, model.reason
    check_brute_force(model, body, functions, {"n": 20, "planes": 4}, jit=True)
    check_brute_force(model, body, functions, {"n": 20, "planes": 1}, jit=True)
