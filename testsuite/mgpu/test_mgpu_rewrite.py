"""The mgpu rewrite at the source level: launch edits (plain, nested parentheses, macro arguments, macro
bodies), API redirection, refusals with their reasons, kernels kept on one device; and a macro-heavy
program built and run on 1 and 3 devices."""

from __future__ import annotations

import re

import pytest
from mgpu_support import NVCC, build, run, table_text, write_rewrite

from s2s.analysis.mgpu.sites import mask, tokens_in
from s2s.cli.main import main
from s2s.driver import RunOptions, process_file
from s2s.edits import Edit
from s2s.printers.explain import Lines, explain
from s2s.transform.mgpu import run_mgpu
from s2s.transform.mgpu_table import c_string

HEAD = """\
#include <cstdio>
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
    printf("error %s\\n", cudaGetErrorString(e_)); return 1; } } while (0)
#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)
__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
__global__ void shift(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + (i > 0 ? x[i - 1] : 0.0f);
}
__device__ int calls;
__global__ void counted(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
    if (i == 0) calls = calls + 1;
}
"""

PROGRAM = HEAD + """\
static int blocks_for(int n, int b) { return (n + b - 1) / b; }
int main() {
    const int n = 1000;
    float h[n], *x, *y;
    for (int i = 0; i < n; ++i) h[i] = 0.5f * (i % 9);
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&y, n * sizeof(float)));
    CHECK(cudaMemcpy(x, h, sizeof(h), cudaMemcpyHostToDevice));
    LAUNCH(scale, n, x, 2.0f, n);
    CHECK(cudaGetLastError());
    shift<<<dim3(blocks_for(n, (64)), 1), dim3((64))>>>(x, y, (int)(n));
    counted<<<blocks_for(n, 128), 128>>>(y, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, y, sizeof(h), cudaMemcpyDeviceToHost));
    double s = 0; for (int i = 0; i < n; ++i) s += h[i] * (i % 7);
    int count = 0; CHECK(cudaGetDeviceCount(&count));
    printf("sum %.3f devices %d\\n", s, count);
    CHECK(cudaFree(x)); CHECK(cudaFree(y));
    return 0;
}
"""


def rewrite_text(tmp_path, text: str, name: str = "prog.cu"):
    path = tmp_path / name
    path.write_text(text)
    result = process_file(str(path), RunOptions(), run_mgpu)
    return path, result


def test_each_launch_is_one_edit_and_every_edit_says_why(tmp_path):
    path, result = rewrite_text(tmp_path, PROGRAM)
    after = result.change.after.decode()
    launches = [e for e in result.change.edits if e.text.startswith("s2s_mgpu_launch(")]
    before = result.change.before.decode()
    assert len(launches) == 3 and all("<<<" in before[e.offset:e.end]
                                      or before[e.offset:e.end].startswith("LAUNCH(")
                                      for e in launches)
    assert len(result.change.edits) == 3 + 2           # the launches, prologue and epilogue
    notes = [d for d in result.diagnostics if d.id == "mgpu-explain"]
    explained = explain(result.change.edits, notes, Lines.of(result.change.before))
    assert all(explained.per_edit), [e.text[:40] for e, why in
                                     zip(result.change.edits, explained.per_edit, strict=True)
                                     if not why]
    assert any("launch of 'shift' through the s2s runtime" in n.message for n in notes)
    # LAUNCH is only the launch: its call is rewritten at the call site (issue 29), the
    # #define keeps its text (it may be a header's, which the rewrite does not edit)
    assert "#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)" in after
    assert "s2s_mgpu_launch(scale, ((n) + 127) / 128, 128)(x, 2.0f, n);" in after
    assert ("s2s_mgpu_launch(shift, dim3(blocks_for(n, (64)), 1), dim3((64)))(x, y, (int)(n));"
            in after)
    assert "s2s_mgpu_launch(counted, blocks_for(n, 128), 128)(y, n);" in after
    assert "<<<" not in after.replace("#define LAUNCH(k, n, ...) k<<<", "")
    # API calls: redirected by name, after the includes, only the ones the file calls
    prologue = after[after.index("#include <cuda_runtime.h>"):after.index("#define CHECK")]
    names = re.findall(r"#define (cuda\w+) s2s_mgpu::(\w+)", prologue)
    assert names == [("cudaDeviceSynchronize", "DeviceSynchronize"), ("cudaFree", "Free"),
                     ("cudaGetDeviceCount", "GetDeviceCount"), ("cudaGetErrorString", "GetErrorString"),
                     ("cudaGetLastError", "GetLastError"), ("cudaMalloc", "Malloc"), ("cudaMemcpy", "Memcpy")]
    # the kernel table, generated beside the file (which includes it), names every kernel
    # and embeds the original source verbatim; the file itself keeps none of it
    (generated,) = result.generated
    assert generated.path == f"{path}.s2s_mgpu.h" and generated.created
    assert generated.edits == (Edit(generated.path, 0, 0, generated.after.decode()),)
    assert after.endswith('static const char s2s_mgpu_source_file[] = __FILE__;\n'
                          '#include "prog.cu.s2s_mgpu.h"\n')
    table = table_text(result)
    assert table.startswith("/* Generated by s2s mgpu from prog.cu")
    assert table.count("reinterpret_cast<const void *>(") == 3 and "reinterpret_cast" not in after
    assert '"__global__ void shift(const float *x, float *y, int n) {\\n"' in table
    assert "s2s_mgpu_file_directory(s2s_mgpu_source_file)" in table


def test_kernel_writing_a_device_variable_runs_on_one_device(tmp_path):
    _, result = rewrite_text(tmp_path, PROGRAM)
    warnings = [d for d in result.diagnostics if d.id == "mgpu-one-device"]
    assert len(warnings) == 1
    assert "'counted'" in warnings[0].message and "writes device variable 'calls'" in warnings[0].message
    assert '\\"partitionable\\":false' in table_text(result)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH")
def test_macro_program_runs_partitioned(tmp_path):
    path, result = rewrite_text(tmp_path, PROGRAM)
    out = write_rewrite(result, tmp_path / "out.cu")
    exe = build(out, tmp_path / "prog")
    x = [2.0 * 0.5 * (i % 9) for i in range(1000)]
    y = [x[i] + (x[i - 1] if i else 0.0) + 1.0 for i in range(1000)]
    expected = f"sum {sum(v * (i % 7) for i, v in enumerate(y)):.3f} devices 1\n"
    one, _ = run(exe, 1)
    three, stats = run(exe, 3, stats=tmp_path / "stats.json")
    assert one == three == expected
    by_kernel = {launch["kernel"]: launch for launch in stats["launches"]}
    assert by_kernel["scale"]["partitioned"] and by_kernel["shift"]["partitioned"]
    assert not by_kernel["counted"]["partitioned"]
    assert by_kernel["counted"]["reason"].startswith("writes device variable 'calls'")


@pytest.mark.parametrize("body, message", [
    ("float *m; cudaMallocManaged(&m, 4);", "'cudaMallocManaged' cannot be rewritten: managed memory"),
    ("float v = 1; cudaMemcpyToSymbol(*&calls, &v, 4);",
     "'cudaMemcpyToSymbol' cannot be rewritten: its symbol is not a variable's plain name"),
    ("int v; cudaDriverGetVersion(&v);",
     "'cudaDriverGetVersion' cannot be rewritten: not supported by the s2s runtime"),
    # a pointer handed to a function may hold anything: its launch cannot find its kernel (one
    # that only kernels of the file are given is rewritten: testsuite/verify/test_cuda_pointer_launch.py)
    ("void pick(void (**)(float *, float, int)); void (*k)(float *, float, int) = scale; "
     "pick(&k); k<<<1, 1>>>(0, 1.0f, 1);",
     "launch of 'k' cannot be rewritten: 'k' is a function pointer whose values the file does "
     "not all show"),
    ("auto r = &run<float>; r(0);", "launch of 'tmpl' cannot be rewritten: a template kernel "
     "launched inside a template whose instantiations the file does not show"),
])
def test_refusals_name_the_reason(tmp_path, body, message):
    text = HEAD + (
                   "template <typename T> __global__ void tmpl(T *x) { x[threadIdx.x] = 0; }\n"
                   + ("template <typename T> void run(T *x) { tmpl<T><<<1, 1>>>(x); }\n"
                      if "run<" in body else "")
                   + f"int main() {{ {body} return 0; }}\n")
    _, result = rewrite_text(tmp_path, text)
    assert result.status == "failed"
    diagnostic = result.diagnostics[0]
    assert diagnostic.id in ("mgpu-api", "mgpu-launch") and message in diagnostic.message, diagnostic.message
    assert diagnostic.location.line == text.count("\n") - ("run<" in body)   # run's launch


def test_forwarding_macro_call_of_a_template_kernel_gets_its_deduced_arguments(tmp_path):
    """LAUNCH is only the launch: each call is rewritten where it is, with the template
    arguments that call deduces (issue 29; a macro body shared by calls could not say them)."""
    text = HEAD + ("template <typename T> __global__ void tmpl(T *x) { x[threadIdx.x] = 0; }\n"
                   "int main() { float *p = 0; double *q = 0; LAUNCH(tmpl, 1, p); "
                   "LAUNCH(tmpl, 2, q); return 0; }\n")
    _, result = rewrite_text(tmp_path, text)
    assert result.status == "ok", [d.headline() for d in result.diagnostics]
    after = result.change.after.decode()
    assert "s2s_mgpu_launch(tmpl<float>, ((1) + 127) / 128, 128)(p);" in after
    assert "s2s_mgpu_launch(tmpl<double>, ((2) + 127) / 128, 128)(q);" in after


def test_refusal_goes_through_the_cli_with_exit_1(tmp_path, capsys):
    path = tmp_path / "bad.cu"
    path.write_text(HEAD + "int main() { float *m; cudaMallocManaged(&m, 4); return 0; }\n")
    assert main(["mgpu", str(path), "--in-place"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:{HEAD.count(chr(10)) + 1}:" in err and "error: not rewritten for the s2s runtime" in err
    assert path.read_text().endswith("return 0; }\n")           # left as it was


def test_code_before_a_late_include_gets_the_redirection_before_it(tmp_path):
    text = HEAD + "void early(float **p) { cudaMalloc(p, 4); }\n#include <cstdlib>\nint main() { return 0; }\n"
    _, result = rewrite_text(tmp_path, text)
    after = result.change.after.decode()
    assert result.change.changed, [d.headline() for d in result.diagnostics]
    assert after.index("#define cudaMalloc") < after.index("void early") < after.index("#include <cstdlib>")


def test_the_redirection_is_never_put_inside_an_if_block(tmp_path):
    """Rodinia's needle.cu ends its includes with ``#ifdef TIMING #include "timing.h" ...
    #endif``: the runtime's header put after that include was inactive, and the rewrite did
    not compile ('use of undeclared identifier s2s_mgpu_launch')."""
    text = HEAD.replace("#include <cuda_runtime.h>\n", "#include <cuda_runtime.h>\n#ifdef TIMING\n"
                        "#include <sys/time.h>\nstruct timeval tv;\n#endif\n") + \
        "int main() { float *x; cudaMalloc(&x, 4); scale<<<1, 1>>>(x, 2.0f, 1); return 0; }\n"
    _, result = rewrite_text(tmp_path, text)
    after = result.change.after.decode()
    assert result.change.changed, [d.headline() for d in result.diagnostics]
    assert after.index("#define cudaMalloc") < after.index("#ifdef TIMING")
    assert not [d for d in result.diagnostics if d.id == "mgpu-rewrite-invalid"]


def test_file_of_kernels_only_gets_its_table_and_nothing_else(tmp_path):
    """No launch, no CUDA call: the kernels are registered for the program's other files."""
    _, result = rewrite_text(tmp_path, HEAD)
    after = result.change.after.decode()
    assert after.startswith(HEAD.split("#define CHECK")[0]) and "#define cuda" not in after
    assert after.endswith('#include "prog.cu.s2s_mgpu.h"\n')
    assert "s2s_mgpu::register_unit" in table_text(result) and '"scale"' in table_text(result)


def test_file_without_cuda_code_is_unchanged(tmp_path):
    _, result = rewrite_text(tmp_path, "#include <cstdio>\nint main() { return 0; }\n")
    assert not result.change.changed


def test_diff_and_output_dir_modes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.cu").write_text(PROGRAM)
    assert main(["mgpu", "p.cu", "--diff"]) == 0
    diff = capsys.readouterr().out
    assert diff.startswith("--- a/p.cu\n+++ b/p.cu\n") and "+#include <s2s_mgpu.h>" in diff
    # the generated table follows as a new file: git apply creates it
    source_diff, table_diff = diff.split("--- /dev/null\n+++ b/p.cu.s2s_mgpu.h\n@@ -0,0 +1,")
    assert '+#include "p.cu.s2s_mgpu.h"' in source_diff and "s2s_mgpu_this_unit" not in source_diff
    assert "+/* Generated by s2s mgpu from p.cu" in table_diff
    assert main(["mgpu", "p.cu", "-o", "out"]) == 0
    assert '#include "p.cu.s2s_mgpu.h"' in (tmp_path / "out" / "p.cu").read_text()
    assert "s2s_mgpu_this_unit" in (tmp_path / "out" / "p.cu.s2s_mgpu.h").read_text()
    assert (tmp_path / "p.cu").read_text() == PROGRAM
    assert not (tmp_path / "p.cu.s2s_mgpu.h").exists()


def test_launch_tokens_in_masked_text():
    source = b'/* k<<<1,1>>>() */ f<<<g(1, (2)), b>>>(x); s = "<<<"; ns::h<<<1, 1>>>();'
    found, problem = tokens_in(mask(source), 0, len(source))
    assert problem is None
    assert [(t.kernel_text, source[t.open:t.close + 3]) for t in found] == [
        ("f", b"<<<g(1, (2)), b>>>"), ("ns::h", b"<<<1, 1>>>")]
    _, problem = tokens_in(mask(b"(*p)<<<1, 1>>>();"), 0, 17)
    assert problem and "not a plain name" in problem


def test_c_string_round_trip():
    data = bytes(range(256)) + b'tab\there "quoted" back\\slash ??= end\n'
    literal = c_string(data, indent=4)
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', literal)
    decoded = b"".join(_unescape(p) for p in pieces)
    assert decoded == data


def _unescape(text: str) -> bytes:
    out, i = bytearray(), 0
    simple = {"n": 10, "t": 9, "\\": 92, '"': 34, "?": 63}
    while i < len(text):
        if text[i] != "\\":
            out.append(ord(text[i]))
            i += 1
        elif text[i + 1] in simple:
            out.append(simple[text[i + 1]])
            i += 2
        else:
            out.append(int(text[i + 1:i + 4], 8))
            i += 4
    return bytes(out)



@pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH")
def test_nvcc_wrapper_builds_the_rewritten_program(tmp_path, monkeypatch, capfd):
    """``s2s nvcc --s2s-passes=mgpu`` rewrites, adds the runtime's include and link flags, and the
    program runs on cpu devices; its warnings point at the original file."""
    monkeypatch.chdir(tmp_path)
    for name in ("S2S_WRAPPED", "S2S_REAL_NVCC", "S2S_PASSES"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "prog.cu").write_text(PROGRAM)
    code = main(["nvcc", "--s2s-passes=mgpu", "-std=c++17", "-arch=sm_90", "prog.cu", "-o", "prog"])
    err = capfd.readouterr().err
    assert code == 0, err
    assert "prog.cu:" in err and "kernel 'counted' runs on one device" in err
    out, stats = run(tmp_path / "prog", 2, stats=tmp_path / "stats.json")
    assert out.startswith("sum ") and sum(launch["partitioned"] for launch in stats["launches"]) == 2
