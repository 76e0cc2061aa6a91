"""``s2s transfers`` across functions (issue 29): allocation helpers returning a device pointer
(``float *d = device_alloc(n)``, ``d = gpu_doubles(n)``) followed to their calls so their
buffers go into the pools; ``if (cudaMalloc(...) != cudaSuccess) {...}`` checks kept around
the pool's calls; an array of device pointers handed to a host function that runs the time
loop (Rodinia hotspot / pathfinder) as one device operation; and the precise reasons where
none of this applies."""

from __future__ import annotations

from pathlib import Path

from s2s.driver import RunOptions, process_file
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "cuda"

KERNEL = """#include <cstdio>
#include <cstdlib>
__global__ void axpy(double *y, const double *x, double a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }
"""

ASSIGNED = KERNEL + """#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) exit(2); } while (0)
static double *gpu_doubles(size_t count)
{
    double *p;
    if (cudaMalloc((void **)&p, count * sizeof(double)) != cudaSuccess)
        exit(2);
    return p;
}
int main()
{
    int n = 1000;
    double *h_x = (double *)malloc(n * sizeof(double));
    double *h_y = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { h_x[i] = i; h_y[i] = 1; }
    double *d_x, *d_y;
    d_x = gpu_doubles(n);
    d_y = gpu_doubles(n);
    CHECK(cudaMemcpy(d_x, h_x, n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, h_y, n * sizeof(double), cudaMemcpyHostToDevice));
    axpy<<<(n + 127) / 128, 128>>>(d_y, d_x, 2.0, n);
    CHECK(cudaMemcpy(h_y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost));
    printf("%f\\n", h_y[n - 1]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
"""

CHECKED = KERNEL + """int main()
{
    int n = 1000;
    double *h_x = (double *)malloc(n * sizeof(double));
    double *h_y = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { h_x[i] = i; h_y[i] = 1; }
    double *d_x, *d_y;
    if (cudaMalloc((void **)&d_x, n * sizeof(double)) != cudaSuccess) {
        fprintf(stderr, "no device memory\\n");
        return 1;
    }
    if (cudaMalloc((void **)&d_y, n * sizeof(double)) != cudaSuccess) {
        fprintf(stderr, "no device memory\\n");
        FREE_X
        return 1;
    }
    cudaMemcpy(d_x, h_x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, n * sizeof(double), cudaMemcpyHostToDevice);
    axpy<<<(n + 127) / 128, 128>>>(d_y, d_x, 2.0, n);
    cudaMemcpy(h_y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost);
    printf("%f\\n", h_y[n - 1]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
"""

TIME_LOOP = KERNEL + """static int run_steps(double *d_w, double *d_v[2], int steps, int n)
{
    int src = 0;
    for (int t = 0; t < steps; t++) {
        axpy<<<(n + 127) / 128, 128>>>(d_v[1 - src], d_v[src], 0.5, n);
        axpy<<<(n + 127) / 128, 128>>>(d_v[1 - src], d_w, 0.1, n);
        src = 1 - src;
    }
    COPY_HERE
    return src;
}
int main()
{
    int n = 1000;
    double *h_v = (double *)malloc(n * sizeof(double));
    double *h_w = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { h_v[i] = i; h_w[i] = 1; }
    double *d_v[2], *d_w;
    cudaMalloc((void **)&d_v[0], n * sizeof(double));
    cudaMalloc((void **)&d_v[1], n * sizeof(double));
    cudaMalloc((void **)&d_w, n * sizeof(double));
    cudaMemcpy(d_v[0], h_v, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_v[1], h_v, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, h_w, n * sizeof(double), cudaMemcpyHostToDevice);
    int last = run_steps(d_w, d_v, 4, n);
    cudaMemcpy(h_v, d_v[last], n * sizeof(double), cudaMemcpyDeviceToHost);
    printf("%f\\n", h_v[n - 1]);
    cudaFree(d_w);
    cudaFree(d_v[0]);
    cudaFree(d_v[1]);
    free(h_v);
    free(h_w);
    return 0;
}
"""


def _rewrite(load_source, text: str):
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    return after, [d for d in output.diagnostics if d.severity.name == "WARNING"], output.diagnostics


def test_buffers_of_an_allocation_helper_in_a_header_are_pooled():
    """wrapper_copies: ``float *d_u = device_alloc(n), *d_v = ..., *d_q = ...;`` with
    device_alloc in device_io.h: 3 cudaMalloc become the pool's one, made in the helper's
    own error check; the two uploads through copy_to_device merge."""
    path = CORPUS / "wrapper_copies" / "heat1d.cu"
    result = process_file(str(path), RunOptions(), run_transfers)
    main = result.change.after.decode().split("int main(")[1]
    assert "device_alloc(" not in main and main.count("cudaMalloc(") == 1
    assert main.count("cudaMemcpy(") == 2 and "cudaFree(s2s_device_pool);" in main
    assert "if (cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes) != cudaSuccess) {\n" \
           "        fprintf(stderr, \"cudaMalloc of %d floats failed\\n\", ((int)n));\n" \
           "        exit(1);\n    }" in main
    assert "float *d_u = 0, *d_v = 0, *d_q = 0;" in main
    notes = [d.message for d in result.diagnostics if "allocation helper" in d.message]
    assert notes == ["the call of allocation helper 'device_alloc' at line 46 is followed: its "
                     "cudaMalloc takes part in the plan"]
    assert not [d for d in result.diagnostics if d.severity.name == "WARNING"]


def test_an_assigned_helper_value_is_pooled(load_source):
    after, warnings, _ = _rewrite(load_source, ASSIGNED)
    main = after.split("int main()")[1]
    assert not warnings
    assert "gpu_doubles(" not in main and main.count("cudaMalloc(") == 1
    # the device buffers take the slots of the host buffers they pair with
    assert "const size_t s2s_device_bytes = s2s_off_h_y + (n * sizeof(double));" in main
    assert "if (cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes) != cudaSuccess)\n" \
           "        exit(2);" in main
    assert main.count("cudaMemcpy(") == 2     # the two uploads merged, the download stays


def test_a_helper_doing_more_than_allocating_is_named(load_source):
    text = ASSIGNED.replace("    return p;\n", "    cudaMemset(p, 0, count * sizeof(double));\n    return p;\n")
    after, warnings, _ = _rewrite(load_source, text)
    [said] = [w.message for w in warnings if "allocation helper" in w.message]
    assert said.startswith("the cudaMalloc of allocation helper 'gpu_doubles' (prog.cu:6) is not "
                           "followed to its calls: its statement at line 11 calls more than cudaMalloc")
    assert "gpu_doubles(" in after.split("int main()")[1]


def test_if_checked_allocations_are_pooled_inside_the_check(load_source):
    after, warnings, _ = _rewrite(load_source, CHECKED.replace("FREE_X\n", ""))
    assert not warnings
    assert after.count("cudaMalloc(") == 1 and after.count("no device memory") == 1
    assert "if (cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes) != cudaSuccess) {" in after
    assert after.count("cudaMemcpy(") == 2


def test_a_check_that_frees_another_buffer_is_not_a_frame(load_source):
    after, warnings, _ = _rewrite(load_source, CHECKED.replace("FREE_X", "cudaFree(d_x);"))
    assert [w.id for w in warnings] == ["transfers-control-flow"]
    assert "'cudaMalloc' under a 'if' statement" in warnings[0].message
    assert after.count("cudaMalloc(") == 2


def test_an_array_of_device_pointers_given_to_a_time_loop_helper_is_pooled(load_source):
    after, warnings, diagnostics = _rewrite(load_source, TIME_LOOP.replace("COPY_HERE\n", ""))
    main = after.split("int main()")[1]
    assert not warnings
    assert main.count("cudaMalloc(") == 1 and "cudaFree(s2s_device_pool);" in main
    assert "int last = run_steps(d_w, d_v, 4, n);" in main
    # the three uploads: both elements and d_w share the host buffers h_v, h_v, h_w
    assert main.count("cudaMemcpy(") <= 4
    assert "cudaMemcpy(h_v, d_v[last], n * sizeof(double), cudaMemcpyDeviceToHost);" in main


def test_a_helper_that_copies_is_not_a_device_call(load_source):
    text = TIME_LOOP.replace("COPY_HERE", "cudaMemcpy(d_w, d_v[src], n * sizeof(double), "
                                          "cudaMemcpyDeviceToDevice);")
    after, warnings, _ = _rewrite(load_source, text)
    [said] = [w.message for w in warnings if w.id == "transfers-escape"]
    assert said.startswith("'d_v' holds device buffers and is used in a way")
    assert after.count("cudaMalloc(") == 3


STRUCT = KERNEL + """struct Bufs { double *x; double *y; };
int main()
{
    int n = 1000;
    double *h = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) h[i] = i;
    Bufs g;
    cudaMalloc((void **)&g.x, n * sizeof(double));
    cudaMalloc((void **)&g.y, n * sizeof(double));
    cudaMemcpy(g.x, h, n * sizeof(double), cudaMemcpyHostToDevice);
    axpy<<<8, 128>>>(g.y, g.x, 2.0, n);
    cudaMemcpy(h, g.y, n * sizeof(double), cudaMemcpyDeviceToHost);
    printf("%f\\n", h[7]);
    cudaFree(g.x);
    cudaFree(g.y);
    free(h);
    return 0;
}
"""


def test_members_of_a_struct_one_function_owns_get_their_own_reason(load_source):
    """(It said "that 'main' fills and returns", and named other functions, neither true.)"""
    _after, warnings, _ = _rewrite(load_source, STRUCT)
    [said] = [w.message for w in warnings if w.id == "transfers-member"]
    assert said.startswith("'g.x' is a member of the struct 'g' that 'main' allocates, copies and "
                           "frees itself: the transfers plan pools and merges only buffers held in "
                           "pointer variables")


def test_calls_checked_by_a_reporting_function_are_pooled_in_it(load_source):
    """Rodinia particlefilter's ``check_error(cudaMalloc(...))``, a function that reports the
    error code it gets (it was "'cudaMalloc' is part of a larger statement")."""
    text = KERNEL + """void check_error(cudaError_t e)
{
    if (e != cudaSuccess) { printf("CUDA error: %s\\n", cudaGetErrorString(e)); exit(1); }
}
""" + CHECKED.replace(KERNEL, "").replace("FREE_X\n", "")
    text = text.replace("""    if (cudaMalloc((void **)&d_x, n * sizeof(double)) != cudaSuccess) {
        fprintf(stderr, "no device memory\\n");
        return 1;
    }""", "    check_error(cudaMalloc((void **)&d_x, n * sizeof(double)));")
    text = text.replace("    cudaMemcpy(d_x, h_x", "    check_error(cudaMemcpy(d_x, h_x").replace(
        "cudaMemcpyHostToDevice);\n    cudaMemcpy(d_y", "cudaMemcpyHostToDevice));\n    cudaMemcpy(d_y")
    after, warnings, _ = _rewrite(load_source, text)
    assert not warnings
    main = after.split("int main()")[1]
    assert "check_error(cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes));" in main
    assert main.count("cudaMalloc(") == 1 and main.count("cudaMemcpy(") == 2
    assert "check_error(cudaMemcpy(d_x, h_x, s2s_off_h_y" in main
