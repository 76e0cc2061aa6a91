"""``s2s transfers`` on the C error-handling idiom: ``if (bad) goto end; ... end: free(h);
cudaFree(d); return status;`` (the OLCF hw8 tasks). A forward ``goto`` to a cleanup label at
the end of the function is an exit path: the function is planned (pools made before every
jump, freed once after the label). A backward jump, a jump into a loop, a cleanup tail that
copies, or a buffer the caller sees keep it as written, with the reason."""

from __future__ import annotations

import pytest

from s2s.analysis.transfers.host_code import find_regions
from s2s.analysis.transfers.host_exits import check_plan, check_seen_values
from s2s.cli.main import main
from s2s.diagnostics import UnsupportedConstruct
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

PROGRAM = """#include <cstdio>
#include <cstdlib>
#define CHECK(call) (call)
__global__ void scale(const float *in, float *out, float f, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = f * in[i]; }
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int status = 0;
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_out = (float *)malloc(n * sizeof(float));
    float *d_in, *d_out, *d_tmp;
    CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_tmp, n * sizeof(float)));
    for (int i = 0; i < n; i++)
        h_in[i] = (float)(i % 7);
    if (n < 8) {
        printf("too small: %d\\n", n);
        goto end;
    }
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    scale<<<(n + 127) / 128, 128>>>(d_in, d_tmp, 2.0f, n);
    scale<<<(n + 127) / 128, 128>>>(d_tmp, d_out, 3.0f, n);
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        if (h_out[i] != 6.0f * h_in[i]) {
            printf("FAIL at %d\\n", i);
            status = 1;
            goto end;
        }
    }
    printf("PASS %f\\n", h_out[n - 1]);
end:
    free(h_in);
    free(h_out);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_tmp));
    return status;
}
"""


def _run(load_source, text: str):
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    warnings = [d for d in output.diagnostics if d.severity.name.lower() == "warning"]
    return after, warnings


def test_cleanup_label_is_an_exit_path_and_the_function_is_pooled(load_source):
    after, warnings = _run(load_source, PROGRAM)
    assert warnings == []
    assert after.count("cudaMalloc(") == 1 and after.count(" malloc(") + after.count(")malloc(") == 1  # the pools
    # the pools and their declarations come before the first goto (no jump past an initialisation)
    assert after.index("char *s2s_device_pool = NULL;") < after.index("goto end;")
    assert after.index("char *s2s_host_pool") < after.index("goto end;")
    # each pool freed once, after the label: on the jump's path and the fall-through path
    tail = after[after.index("end:"):]
    assert tail.split() == ["end:", "free(s2s_host_pool);", "CHECK(cudaFree(s2s_device_pool));",
                            "return", "status;", "}"]
    assert after.count("cudaFree(") == 1 and after.count("goto end;") == 2
    second, _ = _run(load_source, after)      # a second run changes nothing
    assert second == after


def test_buffer_allocated_after_a_goto_stays_out_of_the_pool(load_source):
    text = PROGRAM.replace("    CHECK(cudaMalloc((void **)&d_tmp, n * sizeof(float)));\n", "") \
        .replace("    CHECK(cudaMemcpy(d_in,", "    CHECK(cudaMalloc((void **)&d_tmp, n * sizeof(float)));\n"
                 "    CHECK(cudaMemcpy(d_in,")
    text = text.replace("float *d_in, *d_out, *d_tmp;", "float *d_in, *d_out, *d_tmp = NULL;")
    after, warnings = _run(load_source, text)
    assert warnings == []
    assert "CHECK(cudaMalloc((void **)&d_tmp, n * sizeof(float)));" in after
    assert "CHECK(cudaFree(d_tmp));" in after and "s2s_off_d_tmp" not in after
    assert after.count("cudaMalloc(") == 2


def _refusal(load_source, text: str) -> str:
    after, warnings = _run(load_source, text)
    assert after == text
    assert len(warnings) == 1 and warnings[0].id == "transfers-control-flow"
    return warnings[0].message


def test_backward_goto_is_refused(load_source):
    text = PROGRAM.replace("    for (int i = 0; i < n; i++)\n        h_in[i]",
                           "again:\n    for (int i = 0; i < n; i++)\n        h_in[i]") \
        .replace("            status = 1;\n            goto end;", "            status = 1;\n            goto again;")
    assert "'goto again' jumps backward" in _refusal(load_source, text)


def test_goto_into_a_branch_is_refused(load_source):
    text = PROGRAM.replace('printf("too small: %d\\n", n);\n        goto end;',
                           'printf("too small: %d\\n", n);\n        goto inside;') \
        .replace("end:\n", "    if (status) {\n    inside:\n        printf(\"failed\\n\");\n    }\nend:\n")
    assert "'goto inside' jumps to a label inside a loop or branch" in _refusal(load_source, text)


def test_cleanup_tail_that_copies_is_refused(load_source):
    text = PROGRAM.replace("end:\n    free(h_in);",
                           "end:\n    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));\n"
                           "    free(h_in);")
    assert "do more than free buffers" in _refusal(load_source, text)


def _caller_sees(text: str = PROGRAM) -> str:
    return text.replace("int main(int argc, char **argv)\n{\n    int n = argc > 1 ? atoi(argv[1]) : 1000;",
                        "int run(float *h_out, int n)\n{") \
        .replace("    float *h_out = (float *)malloc(n * sizeof(float));\n", "") \
        .replace("    free(h_out);\n", "") + \
        "int main(int argc, char **argv)\n{\n    static float h[4096];\n" \
        "    return run(h, argc > 1 ? atoi(argv[1]) : 1000);\n}\n"


def test_a_buffer_the_caller_sees_is_planned_when_each_jump_sees_its_value(load_source, capsys, tmp_path):
    """issue 29: 'h_out' is the caller's: the plan downloads into it as often before each
    jump as the program did (check_seen_values), so the caller sees the same on every path."""
    text = _caller_sees()
    after, warnings = _run(load_source, text)
    assert warnings == [] and after.count("cudaMalloc(") == 1
    assert after.index("CHECK(cudaMemcpy(h_out, d_out") < after.index("            goto end;")
    path = tmp_path / "seen.cu"
    path.write_text(text)
    assert main(["verify", "-q", "--passes", "transfers", "--args", "1000", str(path)]) == 0
    assert "verdict: OK" in capsys.readouterr().out


def test_a_download_into_the_callers_buffer_moved_past_a_jump_is_refused(load_source):
    loaded = load_source(_caller_sees(), "prog.cu")
    region, = find_regions(loaded.model, loaded.source)[0]
    assert region.seen_by_caller == {"h_out"}
    download = next(i for i, s in enumerate(region.statements) if "cudaMemcpy(h_out" in s.stmt.span.text(loaded.source))
    check_seen_values(region.function, region.exits, region.statements, region.ops, region.seen_by_caller,
                      [("h_out", download)])
    late = region.exits[-1]     # the check loop's jump, after the program's download
    with pytest.raises(UnsupportedConstruct, match=r"copies into it 0 time\(s\) before 'goto end' \(line "
                       f"{late.goto.span.line}\\) where the program did 1"):
        check_seen_values(region.function, region.exits, region.statements, region.ops, region.seen_by_caller,
                          [("h_out", late.at + 1)])


#: issue 29: each memory call checked by an ``if`` whose error branch is the ``goto``; a
#: scratch buffer sized by the second argument makes an allocation fail on demand
CHECKED = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

static int run(int n, size_t extra)
{
    int status = 1;
    size_t bytes = n * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    float *d_x = NULL, *d_y = NULL, *d_scratch = NULL;
    for (int i = 0; i < n; ++i) { h_x[i] = i % 13; h_y[i] = 1.0f; }
    if (cudaMalloc((void **)&d_x, bytes) != cudaSuccess) goto done;
    if (cudaMalloc((void **)&d_y, bytes) != cudaSuccess) goto done;
    if (cudaMalloc((void **)&d_scratch, extra) != cudaSuccess) goto done;
    if (cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
    if (cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
    axpy<<<(n + 127) / 128, 128>>>(d_y, d_x, 2.0f, n);
    if (cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) goto done;
    {
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += h_y[i];
        printf("sum %.1f\\n", sum);
    }
    status = 0;
done:
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_scratch);
    free(h_x);
    free(h_y);
    return status;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    size_t extra = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 64;
    printf("status %d\\n", run(n, extra));
    return 0;
}
"""


def test_a_goto_in_the_error_check_of_a_memory_call_is_an_exit_path(load_source, capsys, tmp_path):
    """The pool is made in the first allocation's check (its jump: nothing allocated), the
    other allocations become slots, the merged upload keeps the check and its jump; on cpu
    devices the program runs the same on the fall-through path and on the path where an
    allocation fails (2**50 bytes of scratch)."""
    after, warnings = _run(load_source, CHECKED)
    assert warnings == []
    assert "    if (cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes) != cudaSuccess) goto done;\n" in after
    assert after.count("cudaMalloc(") == 1 and after.count("cudaFree(") == 1
    assert "    if (cudaMemcpy(d_x, h_x, s2s_off_h_y + (bytes) - s2s_off_h_x, cudaMemcpyHostToDevice) " \
        "!= cudaSuccess) goto done;\n" in after
    assert after.count("cudaMemcpy(") == 2 and after.count("goto done;") == 3
    assert after.index("char *s2s_device_pool = NULL;") < after.index("goto done;")
    second, _ = _run(load_source, after)
    assert second == after
    path = tmp_path / "checked.cu"
    path.write_text(CHECKED)
    for args in ("700", "700 1125899906842624"):
        assert main(["verify", "-q", "--passes", "transfers", "--args", args, str(path)]) == 0
        assert "verdict: OK" in capsys.readouterr().out


def test_copies_checked_with_jumps_to_different_labels_are_refused(load_source):
    text = CHECKED.replace("cudaMemcpyHostToDevice) != cudaSuccess) goto done;\n    axpy",
                           "cudaMemcpyHostToDevice) != cudaSuccess) goto late;\n    axpy") \
        .replace("    free(h_y);\n    return status;", "late:\n    free(h_y);\n    return status;")
    assert "jumps to different labels (done, late)" in _refusal(load_source, text)


def test_a_checked_copy_may_not_jump_past_a_declaration(load_source):
    """The new jumps of planned copies in a ``goto`` frame: one placed before a declaration
    that comes before the program's first jump would skip it (check_plan)."""
    loaded = load_source(CHECKED, "prog.cu")
    region, = find_regions(loaded.model, loaded.source)[0]
    check_plan(region.function, region.exits, [region.exits[0].at], region.statements)
    declaration = next(i for i, s in enumerate(region.statements) if s.stmt.kind == "decl")
    line = region.statements[declaration].stmt.span.line    # int status = 1;
    with pytest.raises(UnsupportedConstruct, match=f"before the declaration at line {line}, which its jump"):
        check_plan(region.function, region.exits, [declaration], region.statements)
