"""Calls inlined by ``s2s transfers`` and ``s2s fuse`` (issue 29): one function puts a call's
arguments into a wrapper's or helper's statements, with the conversion as a parameter (the
tests of both conversions side by side); ``d = helper(n)`` inlined with ``d`` null first, as
the helper's own local starts; and a second transfers run on the pass's own output, which
changes nothing and says nothing but a note."""

from __future__ import annotations

from pathlib import Path

import pytest

from s2s.edits import EditSet
from s2s.frontend.core.parse import ParseOptions
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


@pytest.fixture(scope="module")
def loaded():
    """``loaded(text)``: the model of an in-memory ``prog.cu``, parsed once for the module
    (several tests read one program: each parse of it costs seconds)."""
    models = {}

    def _load(text: str):
        if text not in models:
            models[text] = load("prog.cu", ParseOptions(), source=text.encode())
        return models[text]
    return _load


def test_a_second_run_on_the_pass_output_changes_nothing_and_warns_nothing():
    """helper_alloc_poisson: the first run pools (``d_u = gpu_alloc(n, "u")`` inlined); on its
    output the second run warned "'h_u' is aliased or reassigned" (the pool's slots seen as
    aliases of the pool). Now: no edit, no warning, a note naming the earlier run's pool.
    (The first run's edits applied without the driver's compile check: one parse less.)"""
    path = CORPUS / "helper_alloc_poisson" / "poisson.cu"
    original = load(str(path))
    first = EditSet(run_transfers(original).edits).apply(str(path), original.source)
    assert first.count(b"cudaMalloc(") == 1
    assert b"    d_u = 0;\n" in first
    again = load(str(path), source=first)
    second = run_transfers(again)
    assert EditSet(second.edits).apply(str(path), again.source) == first
    assert [d.message for d in second.diagnostics if d.severity.name == "WARNING"] == []
    notes = [d.message for d in second.diagnostics if "earlier s2s transfers run" in d.message]
    assert notes == ["'main' holds the pools of an earlier s2s transfers run ('s2s_device_pool'): "
                     "its copies and allocations are planned already; left as it is"]


IN_MACRO = """#include <cstdio>
#include <cstdlib>
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \\
    fprintf(stderr, "%s:%d: %s\\\\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define TRY(call) do { if ((call) != cudaSuccess) return NULL; } while (0)
__global__ void axpy(float *y, const float *x, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }
static float *device_floats(int n)
{
    float *p = NULL;
    CHECK(cudaMalloc((void **)&p, n * sizeof(float)));
    if (p == NULL) {
        fprintf(stderr, "no device memory for %d floats\\n", n);
        exit(2);
    }
    return p;
}
static void upload(float *dst, const float *src, int count)
{
    CHECK(cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyHostToDevice));
}
int main()
{
    int n = 1000;
    float *h_x = (float *)malloc(n * sizeof(float));
    float *h_y = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) { h_x[i] = i; h_y[i] = 1; }
    float *d_x = device_floats(n);
    float *d_y;
    d_y = device_floats(n);
    upload(d_x, h_x, n);
    upload(d_y, h_y, n);
    axpy<<<(n + 127) / 128, 128>>>(d_y, d_x, 2.0f, n);
    CHECK(cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("%f %f\\n", h_y[0], h_y[n - 1]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
"""
#: IN_MACRO with a CHECK that stringizes its argument
STRINGIZED = IN_MACRO.replace("exit(1);", "puts(#call); exit(1);")


def test_mentions_in_a_forwarded_macro_argument_say_where_they_are_written(loaded):
    """libclang gives every mention inside ``CHECK(...)`` the macro call's extent; the fact
    ``spelled`` is where it is written in the call, when the macro expands the argument once
    as it is; a stringizing macro gives none."""
    program = loaded(IN_MACRO)
    source = program.source
    found = {(u.name, u.call): u.spelled for u in program.model.in_function("var_uses", "device_floats")
             if u.span.macro == "CHECK"}
    start, end = found[("p", "cudaMalloc")]
    assert source[start:end] == b"p" and source[start - 1:end] == b"&p"
    start, end = found[("n", "cudaMalloc")]
    assert source[start:end + 2] == b"n *"
    assert found[("e", None)] is None                    # the macro's own local
    assert all(u.spelled is None for u in loaded(STRINGIZED).model.var_uses)


def test_a_helper_checking_its_cudamalloc_with_a_macro_is_inlined(shim_ready, tmp_path, loaded):
    """``CHECK(cudaMalloc((void **)&p, n * sizeof(float)))`` in the helper: the call's copy
    at each call site is the macro call with ``p`` and ``n`` replaced in its argument text;
    the pool's cudaMalloc keeps the CHECK. ``d_y = device_floats(n);`` sets ``d_y = 0;``
    first (the helper's ``p`` starts null and its null test reads it). The copy wrapper
    ``upload`` checks its cudaMemcpy with the same macro: its two calls merge into one. It
    runs the same with one cudaMalloc and one upload."""
    from s2s.verify.cuda_host import build, run

    path = tmp_path / "prog.cu"
    path.write_text(IN_MACRO)
    output = run_transfers(loaded(IN_MACRO))          # (the build below checks the rewrite)
    assert [d.message for d in output.diagnostics if d.severity.name == "WARNING"] == []
    rewritten = EditSet(output.edits).apply("prog.cu", IN_MACRO.encode())
    main = rewritten.decode().split("int main()")[1]
    assert "    float *d_x = 0;\n    CHECK(cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes));\n" \
           "    d_x = reinterpret_cast<decltype(d_x)>(s2s_device_pool + s2s_off_h_x);\n" \
           "    if (d_x == NULL) {\n" \
           "        fprintf(stderr, \"no device memory for %d floats\\n\", ((int)n));\n" in main
    assert "    d_y = 0;\n    d_y = reinterpret_cast<decltype(d_y)>" in main
    assert "device_floats(" not in main and "upload(" not in main
    assert "    CHECK(cudaMemcpy(d_x, h_x, s2s_off_h_y + (n * sizeof(float)) - s2s_off_h_x, " \
           "cudaMemcpyHostToDevice));\n" in main
    # (the original prints "1.000000 1999.000000" with 2 cudaMalloc and 3 cudaMemcpy calls:
    # h_y[i] = 1 + 2 * i; its build is not repeated here)
    after = run(build(str(path), tmp_path / "after", source=rewritten))
    assert after.returncode == 0, after.stderr
    assert after.stdout == "1.000000 1999.000000\n"
    assert (after.counts["cudaMalloc"], after.counts["cudaMemcpy"]) == (1, 2)


def test_a_null_assignment_after_the_allocation_is_still_refused(loaded):
    """``d = 0;`` before the buffer's cudaMalloc holds no storage; after it, it drops the
    buffer's only pointer: that is a reassignment, refused as before."""
    text = IN_MACRO.replace("    cudaFree(d_x);\n", "    d_x = 0;\n    cudaFree(d_x);\n")
    said = [d.message for d in run_transfers(loaded(text)).diagnostics
            if d.severity.name == "WARNING"]
    assert any("'d_x' is aliased or reassigned" in m for m in said)


@pytest.mark.parametrize("change, why", [
    (("exit(1);", "puts(#call); exit(1);"),
     "'p' is mentioned in an argument of macro 'CHECK' that the macro does not forward as written"),
    (("cudaError_t e = (call);", "cudaError_t e = (call); if (e) e = (call);"),
     "its body is more than a pointer's declaration, one cudaMalloc"),   # two in the expansion
    (("    CHECK(cudaMalloc((void **)&p", "    TRY(cudaMalloc((void **)&p"),     # TRY returns NULL
     "its statement at line 11 returns, jumps or declares"),
])
def test_a_macro_that_does_more_than_forward_is_refused_with_the_reason(loaded, change, why):
    output = run_transfers(loaded(IN_MACRO.replace(*change)))
    said = [d.message for d in output.diagnostics if d.id == "transfers-wrapper"]
    assert any(why in m for m in said), said
    assert not output.edits


def test_an_argument_named_as_the_macros_own_local_is_not_captured(loaded):
    """``device_floats(e)`` would put ``e`` into ``cudaError_t e = (cudaMalloc(..., e * 4))``,
    where it names the macro's local: that call stays as written."""
    text = IN_MACRO.replace("    int n = 1000;", "    int e = 1000, n = e;").replace(
        "float *d_x = device_floats(n);", "float *d_x = device_floats(e);")
    output = run_transfers(loaded(text))
    after = EditSet(output.edits).apply("prog.cu", text.encode()).decode()
    assert "float *d_x = device_floats(e);" in after and "CHECK(cudaMalloc((void **)&d_x" not in after


def test_a_copy_wrapper_behind_a_stringizing_macro_says_why(loaded):
    said = [d.message for d in run_transfers(loaded(STRINGIZED)).diagnostics
            if d.id == "transfers-wrapper" and "'upload'" in d.message]
    assert said == ["the copies of 'upload' (prog.cu:18) are not followed to its calls: parameter "
                    "'dst' is mentioned in a macro's argument that the macro does not forward as "
                    "written, or in a template instantiation; they are left as written"]
