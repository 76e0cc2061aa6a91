"""What ``s2s transfers`` refuses (a warning with a stable id at the construct, the file left
as written), what it keeps (error-check macros around the calls it replaces), and the CLI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

HEAD = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
    fprintf(stderr, "%s\\n", cudaGetErrorString(e_)); exit(1); } } while (0)
__global__ void scale(int n, const float *x, float *y) { int i = threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
void consume(float *p);
"""


def program(body: str) -> str:
    return HEAD + "int main() {\n    int n = 64;\n    size_t bytes = n * sizeof(float);\n" + body + "    return 0;\n}\n"


PLAIN = """    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    float *h_c = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) { h_a[i] = i; h_b[i] = 1; }
    float *d_a, *d_b, *d_c;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_c, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    scale<<<1, 64>>>(n, d_a, d_c);
    scale<<<1, 64>>>(n, d_b, d_c);
    cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost);
    printf("%f\\n", h_c[3]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h_a);
    free(h_b);
    free(h_c);
"""


def transfers(load_source, text: str):
    loaded = load_source(text, "prog.cu")
    assert loaded.model is not None, loaded.diagnostics
    output = run_transfers(loaded)
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    warnings = [d for d in output.diagnostics if d.severity.value == "warning"]
    return after, warnings


def refused(load_source, body: str) -> tuple[str, int, int]:
    text = program(body)
    after, warnings = transfers(load_source, text)
    assert after == text, "a refused region must be left as written"
    assert len(warnings) == 1, warnings
    w = warnings[0]
    return w.id, w.location.line, w.location.column


def line_of(body: str, needle: str) -> int:
    lines = program(body).splitlines()
    return next(number for number, text in enumerate(lines, 1) if needle in text)


def test_plain_region_is_rewritten(load_source):
    after, warnings = transfers(load_source, program(PLAIN))
    assert not warnings
    assert after.count("cudaMemcpy(") == 2 and after.count("cudaMalloc(") == 1
    assert "cudaMemcpy(d_a, h_a, s2s_off_h_b + (bytes) - s2s_off_h_a, cudaMemcpyHostToDevice);" in after


@pytest.mark.parametrize("change, needle, expected_id", [
    ("    float *alias = h_a;\n", "alias", "transfers-escape"),
    ("    consume(d_a);\n", "consume(d_a)", "transfers-escape"),
    ("    h_b = (float *)realloc(h_b, 2 * bytes);\n", "realloc", "transfers-escape"),
    ("    if (n > 2)\n        cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);\n",
     "        cudaMemcpy(d_a, h_a", "transfers-control-flow"),
])
def test_refusals_after_the_launches(load_source, change, needle, expected_id):
    body = PLAIN.replace("    cudaMemcpy(h_c, d_c", change + "    cudaMemcpy(h_c, d_c")
    id, line, column = refused(load_source, body)
    assert id == expected_id
    first = needle.splitlines()[0]
    assert line == line_of(body, first)
    assert column > 1


def test_memory_call_in_branch_points_at_the_call(load_source):
    # a loop's body is a region of its own (test_host_body.py); a branch is not
    body = PLAIN.replace("    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);\n",
                         "    if (n > 2)\n        cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);\n")
    assert refused(load_source, body) == ("transfers-control-flow", line_of(body, "(d_b, h_b"), 9)


def test_partial_copy_stays_as_written_and_the_rest_is_pooled(load_source):
    # issue 29 item 5: a copy of part of a buffer is no refusal; it stays where it is
    body = PLAIN.replace("cudaMemcpy(d_b, h_b, bytes,", "cudaMemcpy(d_b, h_b, bytes / 2,")
    after, warnings = transfers(load_source, program(body))
    assert not warnings
    assert "    cudaMemcpy(d_b, h_b, bytes / 2, cudaMemcpyHostToDevice);\n    scale<<<1, 64>>>(n, d_a, d_c);" \
        in after
    assert after.count("cudaMemcpy(") == 3 and after.count("cudaMalloc(") == 1


def test_pointer_arithmetic_in_a_launch_is_a_slice_of_the_buffer(load_source):
    # issue 29 item 5: d_b + 32 reads part of d_b, whose slot holds all of it: pooled, and
    # its upload still merges with d_a's
    body = PLAIN.replace("scale<<<1, 64>>>(n, d_b, d_c)", "scale<<<1, 32>>>(n, d_b + 32, d_c)")
    after, warnings = transfers(load_source, program(body))
    assert not warnings
    assert "cudaMemcpy(d_a, h_a, s2s_off_h_b + (bytes) - s2s_off_h_a, cudaMemcpyHostToDevice);" in after
    assert "scale<<<1, 32>>>(n, d_b + 32, d_c);" in after and after.count("cudaMalloc(") == 1


def test_stream_launch(load_source):
    # issue 29: a launch on a blocking stream the function creates is ordered with the
    # default stream's copies the plan places (test_streams.py); a non-blocking one is not
    body = "    cudaStream_t s;\n    cudaStreamCreate(&s);\n" + PLAIN.replace(
        "scale<<<1, 64>>>(n, d_b, d_c)", "scale<<<1, 64, 0, s>>>(n, d_b, d_c)")
    after, warnings = transfers(load_source, program(body))
    assert not warnings and after.count("cudaMalloc(") == 1 and "scale<<<1, 64, 0, s>>>(n, d_b, d_c);" in after
    body = body.replace("cudaStreamCreate(&s)", "cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)")
    id, line, _ = refused(load_source, body)
    assert (id, line) == ("transfers-stream", line_of(body, "0, s>>>"))


def test_call_from_a_macro_body(load_source):
    body = PLAIN.replace("    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);\n", "    UPLOAD(d_b, h_b);\n")
    text = program(body).replace("void consume", "#define UPLOAD(d, h) cudaMemcpy(d, h, bytes, "
                                 "cudaMemcpyHostToDevice)\nvoid consume")
    after, warnings = transfers(load_source, text)
    assert after == text and [w.id for w in warnings] == ["transfers-in-macro"]


def test_host_buffer_reused_after_overwrite_is_refused(load_source):
    # h_a gets the kernel result back, then the program uploads h_a's *old* role again: the
    # value the device needs is gone from the host (one transfer per value cannot express it)
    body = PLAIN.replace("    printf(", "    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);\n"
                         "    scale<<<1, 64>>>(n, d_a, d_b);\n    printf(")
    after, warnings = transfers(load_source, program(body))
    assert [w.id for w in warnings] in ([], ["transfers-device-reuse"])
    if not warnings:
        assert after.count("cudaMemcpy(") <= program(body).count("cudaMemcpy(")


CHECKED = """    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    float *h_c = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) { h_a[i] = i; h_b[i] = 1; }
    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc((void **)&d_a, bytes));
    CHECK(cudaMalloc((void **)&d_b, bytes));
    CHECK(cudaMalloc((void **)&d_c, bytes));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    scale<<<1, 64>>>(n, d_a, d_c);
    scale<<<1, 64>>>(n, d_b, d_c);
    CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
    printf("%f\\n", h_c[3]);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
"""


def test_error_check_macros_are_kept(load_source, tmp_path):
    after, warnings = transfers(load_source, program(CHECKED))
    assert not warnings
    assert "CHECK(cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes));" in after
    assert "CHECK(cudaMemcpy(d_a, h_a, s2s_off_h_b + (bytes) - s2s_off_h_a, cudaMemcpyHostToDevice));" in after
    assert "CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));" in after
    assert "CHECK(cudaFree(s2s_device_pool));" in after and after.count("cudaFree(") == 1
    assert "#define CHECK(call) do" in after  # the macro itself is untouched
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not Path(nvcc).is_file():
        pytest.skip("nvcc not found")
    source = tmp_path / "checked.cu"
    source.write_text(after)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(source), "-o", str(tmp_path / "c.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_cli_diff_explain_and_warning(tmp_path, capsys, monkeypatch):
    good = tmp_path / "good.cu"
    good.write_text(program(PLAIN))
    bad = tmp_path / "bad.cu"
    bad.write_text(program(PLAIN.replace("    printf(", "    float *alias = h_a;\n    printf(")))
    monkeypatch.chdir(tmp_path)
    assert main(["transfers", "good.cu", "bad.cu", "--diff", "--explain"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("--- a/good.cu\n+++ b/good.cu\n") and "bad.cu" not in out
    assert "good.cu:" in err and "[transfers-explain]" in err
    line = program(PLAIN).count("\n", 0, program(PLAIN).index("    printf(")) + 1
    assert f"bad.cu:{line}:5: warning: 'h_a' is aliased or reassigned" in err and "[transfers-escape]" in err
    assert main(["transfers", "good.cu", "--in-place"]) == 0
    assert good.read_text().count("cudaMemcpy(") == 2


#: a helper of the program that ends the device's allocations (or switches the device)
RESET_HELPER = "static void resetDevice(int verbose)\n{\n    if (verbose)\n        printf(\"resetting\\n\");\n" \
               "    cudaDeviceReset();\n}\n"


@pytest.mark.parametrize("between", [
    "    cudaDeviceReset();\n",
    "    cudaThreadExit();\n",
    "    resetDevice(0);\n",
    "    CHECK(cudaSetDevice(0));\n",
])
def test_a_device_reset_between_operations_of_the_region_is_refused(load_source, between):
    """``cudaDeviceReset`` destroys every allocation: a pool allocated before it and used
    after it (the program's own buffers after it were new ones) would be freed memory.
    Before, main was pooled across it, directly or in a helper."""
    body = PLAIN.replace("    cudaMemcpy(d_b, h_b", between + "    cudaMemcpy(d_b, h_b")
    text = program(body).replace("int main()", RESET_HELPER + "int main()")
    after, warnings = transfers(load_source, text)
    assert after == text and [w.id for w in warnings] == ["transfers-unsupported-call"]
    assert "between operations of the region" in warnings[0].message, warnings[0].message
    assert warnings[0].location.line == line_of(body, between.strip()) + RESET_HELPER.count("\n")


@pytest.mark.parametrize("body", [
    "    CHECK(cudaSetDevice(0));\n" + PLAIN,        # before the first operation
    PLAIN + "    cudaDeviceReset();\n",             # after the last one
    PLAIN + "    resetDevice(1);\n",
    # between the last device operation and the host's frees
    PLAIN.replace("    free(h_a);\n", "    cudaDeviceReset();\n    free(h_a);\n"),
])
def test_a_device_reset_outside_the_operations_changes_nothing(load_source, body):
    after, warnings = transfers(load_source, program(body).replace("int main()", RESET_HELPER + "int main()"))
    assert not warnings and after.count("cudaMalloc(") == 1 and after.count("cudaMemcpy(") == 2
