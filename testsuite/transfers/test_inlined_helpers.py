"""Calls inlined by ``s2s transfers`` and ``s2s fuse`` (issue 29): one function puts a call's
arguments into a wrapper's or helper's statements, with the conversion as a parameter (the
tests of both conversions side by side); ``d = helper(n)`` inlined with ``d`` null first, as
the helper's own local starts; and a second transfers run on the pass's own output, which
changes nothing and says nothing but a note."""

from __future__ import annotations

from pathlib import Path

import pytest

from s2s.driver import RunOptions, Success, process_file
from s2s.edits import EditSet
from s2s.frontend.extract import load
from s2s.transform.alloc_helpers import LOCAL, helper_value
from s2s.transform.fuse_wrappers import bound_text, parenthesized
from s2s.transform.transfers import run_transfers

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "cuda"

#: ``cudaMalloc((void **)&p, n * sizeof(float))`` with the mentions of ``p`` (the helper's
#: local) and ``n`` (parameter 0) bound
STATEMENT = "cudaMalloc((void **)&p, n * sizeof(float))"
BOUND = ((21, 22, LOCAL), (24, 25, 0))


@pytest.mark.parametrize("args, launch_wrapper, allocation_helper", [
    (["count"], "cudaMalloc((void **)&d_u, count * sizeof(float));",
     "cudaMalloc((void **)&d_u, ((int)count) * sizeof(float));"),
    (["rows * cols"], "cudaMalloc((void **)&d_u, (rows * cols) * sizeof(float));",
     "cudaMalloc((void **)&d_u, ((int)(rows * cols)) * sizeof(float));"),
    (["64"], "cudaMalloc((void **)&d_u, 64 * sizeof(float));",
     "cudaMalloc((void **)&d_u, 64 * sizeof(float));"),
])
def test_one_binding_two_conversions(args, launch_wrapper, allocation_helper):
    """A launch wrapper's argument goes in as written (parenthesized unless one token); an
    allocation helper's integral argument as the call converted it, a cast to the parameter's
    type; its local is the caller's variable."""
    as_written = bound_text(STATEMENT, BOUND, lambda i: "d_u" if i == LOCAL else parenthesized(args[i]))
    converted = bound_text(STATEMENT, BOUND, helper_value("d_u", args, ("int",)))
    assert (as_written, converted) == (launch_wrapper, allocation_helper)


def test_statement_endings_are_kept_or_added():
    guarded = "if (p == 0) { exit(1); }"
    value = helper_value("d", [], ())
    assert bound_text(guarded, ((4, 5, LOCAL),), value, (";", "}")) == "if (d == 0) { exit(1); }"
    assert bound_text("k<<<g, b>>>(x)", ((12, 13, 0, True),), lambda i: "d_x") == "k<<<g, b>>>(d_x);"
    assert bound_text("k<<<g, b>>>(x);  ", ((12, 13, 0, True),), lambda i: "a + 1") == \
        "k<<<g, b>>>(a + 1);"


NULL_TESTED = """#include <cstdio>
#include <cstdlib>
__global__ void axpy(double *y, const double *x, double a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }
static double *gpu_doubles(size_t count)
{
    double *p = 0;
    cudaMalloc((void **)&p, count * sizeof(double));
    if (p == 0) {
        fprintf(stderr, "no device memory for %lu doubles\\n", (unsigned long)count);
        exit(2);
    }
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
    cudaMemcpy(d_x, h_x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, n * sizeof(double), cudaMemcpyHostToDevice);
    axpy<<<(n + 127) / 128, 128>>>(d_y, d_x, 2.0, n);
    cudaMemcpy(h_y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h_y[0], h_y[n - 1]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
"""


def test_an_assigned_helper_call_starts_its_variable_null(shim_ready, tmp_path):
    """``d_x = gpu_doubles(n);`` inlined: ``d_x = 0;`` first (the helper's ``p`` starts null
    and its null test reads it), then the pool's one cudaMalloc; it runs the same."""
    from s2s.verify.cuda_host import build, run

    path = tmp_path / "prog.cu"
    path.write_text(NULL_TESTED)
    result = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(result, Success)
    assert [d.message for d in result.diagnostics if d.severity.name == "WARNING"] == []
    main = result.change.after.decode().split("int main()")[1]
    assert "    d_x = 0;\n    cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes);\n" \
           "    d_x = reinterpret_cast<decltype(d_x)>(s2s_device_pool + s2s_off_h_x);\n" \
           "    if (d_x == 0) {\n" in main
    assert "    d_y = 0;\n    d_y = reinterpret_cast<decltype(d_y)>" in main
    before = run(build(str(path), tmp_path / "before"))
    after = run(build(str(path), tmp_path / "after", source=result.change.after))
    assert before.returncode == after.returncode == 0, before.stderr + after.stderr
    assert before.stdout == after.stdout == "1.000000 1999.000000\n"
    assert (before.counts["cudaMalloc"], after.counts["cudaMalloc"]) == (2, 1)
    assert (before.counts["cudaMemcpy"], after.counts["cudaMemcpy"]) == (3, 2)


def test_a_null_assignment_after_the_allocation_is_still_refused(load_source):
    """``d = 0;`` before the buffer's cudaMalloc holds no storage; after it, it drops the
    buffer's only pointer: that is a reassignment, refused as before."""
    text = NULL_TESTED.replace("    cudaFree(d_x);\n", "    d_x = 0;\n    cudaFree(d_x);\n")
    loaded = load_source(text, "prog.cu")
    said = [d.message for d in run_transfers(loaded).diagnostics if d.severity.name == "WARNING"]
    assert any("'d_x' is aliased or reassigned" in m for m in said)


def test_a_second_run_on_the_pass_output_changes_nothing_and_warns_nothing():
    """helper_alloc_poisson: the first run pools (``d_u = gpu_alloc(n, "u")`` inlined); on its
    output the second run warned "'h_u' is aliased or reassigned" (the pool's slots seen as
    aliases of the pool). Now: no edit, no warning, a note naming the earlier run's pool."""
    path = CORPUS / "helper_alloc_poisson" / "poisson.cu"
    first = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(first, Success) and first.change.after.count(b"cudaMalloc(") == 1
    assert b"    d_u = 0;\n" in first.change.after
    again = load(str(path), source=first.change.after)
    second = run_transfers(again)
    assert EditSet(second.edits).apply(str(path), again.source) == first.change.after
    assert [d.message for d in second.diagnostics if d.severity.name == "WARNING"] == []
    notes = [d.message for d in second.diagnostics if "earlier s2s transfers run" in d.message]
    assert notes == ["'main' holds the pools of an earlier s2s transfers run ('s2s_device_pool'): "
                     "its copies and allocations are planned already; left as it is"]
