"""Ghost-zone ("pyramid") kernels, issue 29: a block loads a tile with a skirt, advances it
several steps in shared memory and writes back only the cells that stayed valid. The write
is guarded by a flag set in a loop that breaks in its last iteration; before, the loop made
the flag unknown, the write covered every thread, the blocks' skirts overlapped and the
kernel ran whole on one device (Rodinia pathfinder and hotspot).

* ``last_iteration``: a counted loop whose every ``break`` pins the last iteration leaves
  with the last iteration's values; a ``break`` that can come earlier keeps the old rule.
* ``relevance``: forks of an assignment to a variable that steers no global access (a
  clamped shared-tile index) are joined, so clamping four neighbours does not multiply the
  paths by 16.

Every model is checked against a concrete run of the kernel (``kernel_eval``): the true
accesses inside the maps, equal to them where the map is exact.
"""

from __future__ import annotations

from runtime.access import Box, KernelAccess, Launch
from runtime.access.islmaps import merge_ranges
from s2s.analysis.kernel.relevance import irrelevant_names
from testsuite.access.kernel_eval import run_threads
from testsuite.access.test_access_analysis import analyse

PATH = """
#define TILE 16
#define INSIDE(v, lo, hi) ((v) >= (lo) && (v) <= (hi))
__global__ void band(const int *cost, const int *up, int *down, int width, int steps) {
    __shared__ int have[TILE], made[TILE];
    int lane = threadIdx.x, owned = TILE - 2 * steps;
    int origin = blockIdx.x * owned - steps, col = origin + lane;
    int lo = origin < 0 ? -origin : 0;
    int hi = origin + TILE - 1 > width - 1 ? width - 1 - origin : TILE - 1;
    bool on_grid = INSIDE(lane, lo, hi);
    if (INSIDE(col, 0, width - 1)) have[lane] = up[col];
    __syncthreads();
    bool done = false;
    for (int s = 0; s < steps; ++s) {
        done = false;
        if (INSIDE(lane, s + 1, TILE - 2 - s) && on_grid) {
            int w = lane - 1 < lo ? lo : lane - 1, e = lane + 1 > hi ? hi : lane + 1;
            made[lane] = min(min(have[w], have[lane]), have[e]) + cost[s * width + col];
            done = true;
        }
        __syncthreads();
        if (s == steps - 1) break;
        if (done) have[lane] = made[lane];
        __syncthreads();
    }
    if (done) down[col] = made[lane];
}"""


def check_launch(model, body, functions, grid, block, scalars):
    """Per block and for the whole grid: true accesses within the maps, equal when exact."""
    access = KernelAccess.from_dict(model.to_dict())
    launch = Launch(grid, block, scalars)
    boxes = [((0, 0, 0), grid)] + [((x, 0, 0), (x + 1, grid[1], 1)) for x in range(grid[0])]
    for box in boxes:
        seen = run_threads(body, functions, grid, block, scalars, box)
        for array in model.arrays:
            for mode, exact in (("read", array.read_exact), ("write", array.write_exact)):
                truth = merge_ranges((o, o + 1) for o in seen.get((array.name, mode), ()))
                got = getattr(access, f"{mode}_ranges")(array.name, Box(*box), launch)
                if exact:
                    assert got == truth, (array.name, mode, box)
                assert all(any(a <= lo and hi <= b for a, b in got) for lo, hi in truth), \
                    (array.name, mode, box, truth, got)
    return access, launch


def test_flag_of_a_loop_breaking_in_its_last_iteration_guards_the_write(load_source):
    model, body, functions = analyse(load_source, PATH)
    assert model.partitionable, model.reason
    assert not model.sizes_decide
    access, launch = check_launch(model, body, functions, (4, 1, 1), (16, 1, 1),
                                  {"width": 40, "steps": 3})
    assert access.launch_conflict(launch) is None
    # each block writes only the 10 columns it owns: no skirt cell
    assert access.write_ranges("down", Box((1, 0, 0), (2, 1, 1)), launch) == [(10, 20)]
    # the write's only inexact piece is the loop that never ran (the flag then unset)
    assert access.read_ranges("down", Box((0, 0, 0), (4, 1, 1)), launch) == []


def test_two_dimensional_tile_with_clamped_neighbours_stays_within_the_path_limit(load_source):
    model, body, functions = analyse(load_source, """
#define T 8
#define INSIDE(v, lo, hi) ((v) >= (lo) && (v) <= (hi))
#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))
__global__ void plate(const float *in, float *out, int n, int steps) {
    __shared__ float now[T][T], next[T][T];
    int tx = threadIdx.x, ty = threadIdx.y, owned = T - 2 * steps;
    int x0 = blockIdx.x * owned - steps, y0 = blockIdx.y * owned - steps;
    int x = x0 + tx, y = y0 + ty;
    if (INSIDE(x, 0, n - 1) && INSIDE(y, 0, n - 1)) now[ty][tx] = in[y * n + x];
    __syncthreads();
    int xmin = x0 < 0 ? -x0 : 0, ymin = y0 < 0 ? -y0 : 0;
    int xmax = x0 + T - 1 > n - 1 ? n - 1 - x0 : T - 1;
    int ymax = y0 + T - 1 > n - 1 ? n - 1 - y0 : T - 1;
    int north = CLAMP(ty - 1, ymin, ymax), south = CLAMP(ty + 1, ymin, ymax);
    int west = CLAMP(tx - 1, xmin, xmax), east = CLAMP(tx + 1, xmin, xmax);
    bool valid = false;
    for (int it = 0; it < steps; it++) {
        valid = INSIDE(tx, it + 1, T - 2 - it) && INSIDE(ty, it + 1, T - 2 - it) &&
                INSIDE(tx, xmin, xmax) && INSIDE(ty, ymin, ymax);
        if (valid) next[ty][tx] = 0.25f * (now[north][tx] + now[south][tx] + now[ty][west]
                                           + now[ty][east]);
        __syncthreads();
        if (it == steps - 1) break;
        if (valid) now[ty][tx] = next[ty][tx];
        __syncthreads();
    }
    if (valid) out[y * n + x] = next[ty][tx];
}""")
    assert model.partitionable, model.reason
    assert irrelevant_names((body,)) >= {"north", "south", "west", "east"}
    assert not {"xmin", "xmax", "valid", "x", "y"} & irrelevant_names((body,))
    access, launch = check_launch(model, body, functions, (3, 3, 1), (8, 8, 1),
                                  {"n": 12, "steps": 2})
    assert access.launch_conflict(launch) is None


def test_a_break_before_the_last_iteration_keeps_the_flag_unknown(load_source):
    model, body, functions = analyse(load_source, """
__global__ void k(int *out, int steps) {
    bool hit = false;
    for (int s = 0; s < steps; s++) {
        hit = threadIdx.x == s;
        if (s == 2) break;
    }
    if (hit) out[blockIdx.x] = 1;
}""")
    # the break at s == 2 is not the last iteration's: the flag is unknown after the loop,
    # so every thread may write out[blockIdx.x] (one block per element: still partitionable)
    assert not model.array("out").write_exact
    check_launch(model, body, functions, (3, 1, 1), (4, 1, 1), {"steps": 5})
    check_launch(model, body, functions, (2, 1, 1), (4, 1, 1), {"steps": 2})


def test_last_iteration_values_reach_the_code_after_the_loop(load_source):
    model, body, functions = analyse(load_source, """
__global__ void k(float *out, int n) {
    int last = -1;
    for (int i = 0; i < n; i++) {
        last = i * 4 + threadIdx.x;
        if (i == n - 1) break;
    }
    out[blockIdx.x * 64 + last] = 1.0f;
}""")
    assert model.partitionable, model.reason
    write = model.array("out")
    access, launch = check_launch(model, body, functions, (2, 1, 1), (4, 1, 1), {"n": 3})
    assert access.write_ranges("out", Box((1, 0, 0), (2, 1, 1)), launch) == [(72, 76)]
    assert write.write_exact        # both exits are exact: the last iteration's, and n <= 0
    skipped = Launch((2, 1, 1), (4, 1, 1), {"n": 0})
    assert access.write_ranges("out", Box((1, 0, 0), (2, 1, 1)), skipped) == [(63, 64)]


def test_a_clamped_index_that_reaches_global_memory_keeps_its_forks(load_source):
    model, body, functions = analyse(load_source, """
__global__ void k(const float *in, float *out, int n) {
    __shared__ float tile[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i > n - 1 ? n - 1 : i;
    int t = threadIdx.x > 0 ? threadIdx.x - 1 : 0;
    tile[threadIdx.x] = in[j];
    __syncthreads();
    if (i < n) out[i] = tile[t];
}""")
    assert irrelevant_names((body,)) == {"t"}
    assert model.partitionable and model.array("in").read_exact
    check_launch(model, body, functions, (3, 1, 1), (8, 1, 1), {"n": 20})


def test_relevance_follows_flows_through_assignments_and_conditions(load_source):
    _, body, _ = analyse(load_source, """
__global__ void k(float *out, int n) {
    __shared__ float s[64];
    int a = threadIdx.x, b = a + 1, c = b * 2;   // b, c: only into d
    int d = c > 5 ? 5 : c;          // feeds only a shared index
    int e = a < 3 ? 3 : a;          // feeds a condition
    int f = e + 1;
    s[d] = 1.0f;
    if (f < n) out[a] = s[d];
}""")
    assert irrelevant_names((body,)) == {"b", "c", "d"}   # b and c feed only d


def test_a_last_iteration_with_too_many_paths_falls_back_to_forgetting(load_source):
    ifs = "".join(f"        if (threadIdx.x > {k}) a += {k};\n" for k in range(1, 8))
    model, _, _ = analyse(load_source, f"""
__global__ void k(int *out, int n) {{
    int a = 0;
    for (int i = 0; i < n; i++) {{
        a = 0;
{ifs}        if (i == n - 1) break;
    }}
    out[blockIdx.x * 64 + a] = 1;
}}""")
    # 128 paths leave the last iteration (more than statements.MAX_EXITS): 'a' is unknown
    # after the loop, as before the rule, and the kernel is still analysed
    assert not model.partitionable and "data-dependent offset" in model.reason
