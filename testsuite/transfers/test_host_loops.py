"""``s2s transfers`` around host loops that launch kernels (issue 19, item 2): the loop is one
operation of the region, copies and allocations before and after it fuse, rotated buffers keep
their own copies, and what a loop does besides launching is refused with the place."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from s2s.analysis.transfers.host_code import find_regions
from s2s.cli.main import main
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

HEAD = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void relax(const float *in, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i > 0 && i < n - 1) out[i] = 0.5f * (in[i - 1] + in[i + 1]); }
__global__ void fill(float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1.0f; }
"""

LOOP = HEAD + """int main(int argc, char **argv)
{
    int n = 1024, steps = argc > 1 ? atoi(argv[1]) : 3;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) { h_a[i] = (float)(i % 7); h_b[i] = -1.0f; }
    float *d_a, *d_b, *d_c;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_c, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    for (int t = 0; t < steps; ++t) {
        relax<<<(n + 255) / 256, 256>>>(d_a, d_c, n);
        float *tmp = d_a;
        d_a = d_c;
        d_c = tmp;
    }
    if (steps > 1)
        relax<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
    cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_b, d_b, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f %f\\n", h_a[5], h_a[n / 2], h_b[7]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h_a);
    free(h_b);
    return 0;
}
"""


def rewrite(load_source, text: str):
    loaded = load_source(text, "prog.cu")
    assert loaded.model is not None, loaded.diagnostics
    output = run_transfers(loaded)
    warnings = [d for d in output.diagnostics if d.severity.value == "warning"]
    return EditSet(output.edits).apply("prog.cu", loaded.source).decode(), warnings


def loop_ops(load_source, text: str):
    loaded = load_source(text, "prog.cu")
    regions, refusals = find_regions(loaded.model, loaded.source)
    assert not refusals, refusals
    return [op for op in regions[0].ops if getattr(op, "name", "").startswith("loop at line")], regions[0]


def test_a_loop_is_one_operation_that_may_run_no_iteration(load_source):
    ops, region = loop_ops(load_source, LOOP)
    rotation, branch = ops
    # d_a is read before the loop writes it; the rotation mixes d_a and d_c: both written, and
    # d_c (no value before the loop) is not read
    assert set(rotation.reads) == {"d_a"} and set(rotation.writes) == {"d_a", "d_c"}
    # relax writes only the inside of d_b, and the branch may not run: d_b keeps its upload
    assert set(branch.reads) == {"d_a", "d_b"} and branch.writes == ("d_b",)
    loop = region.graph.op_of_kernel.index(region.ops.index(rotation))
    assert region.unfused == {"d_a": loop, "d_c": loop}


def test_copies_and_allocations_around_loops_fuse(load_source):
    after, warnings = rewrite(load_source, LOOP)
    assert not warnings
    assert after.count("cudaMalloc(") == 1
    # before the rotating loop d_a names its own slot: its upload joins d_b's; after the loop
    # it moves alone, by its variable (which slot it names depends on the iterations)
    assert "cudaMemcpy(d_a, h_a, s2s_off_h_b + (bytes) - s2s_off_h_a, cudaMemcpyHostToDevice);" in after
    assert "cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost);" in after
    assert after.count("cudaMemcpy(") == 3
    assert "d_c = reinterpret_cast<decltype(d_c)>(s2s_device_pool + s2s_off_d_c);" in after
    for loop in ("    for (int t = 0; t < steps; ++t) {\n        relax", "    if (steps > 1)\n        relax"):
        assert loop in after


def test_loop_launch_pattern_fuses_its_copies(load_source):
    text = (HEAD + """int main()
{
    int n = 512;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes);
    float *h_b = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) { h_a[i] = i; h_b[i] = 0; }
    float *d_a, *d_b;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    for (int t = 0; t < 4; ++t) {
        relax<<<2, 256>>>(d_a, d_b, n);
        relax<<<2, 256>>>(d_b, d_a, n);
    }
    cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_b, d_b, bytes, cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h_a[3], h_b[3]);
    cudaFree(d_a);
    cudaFree(d_b);
    free(h_a);
    free(h_b);
    return 0;
}
""")
    after, warnings = rewrite(load_source, text)
    assert not warnings
    assert after.count("cudaMalloc(") == 1 and after.count("cudaMemcpy(") == 2


@pytest.mark.parametrize("inside, needle, words", [
    ("        h_a[0] += 1.0f;\n", "h_a[0] += 1.0f", "'h_a' is used next to the launches of a loop"),
    ("        d_a = d_c;\n", "d_a = d_c;\n        relax", "do not rotate"),
    ("        float *keep = d_a;\n", "keep = d_a", "'keep' holds a device buffer after the loop"),
])
def test_what_a_loop_does_besides_launching_is_refused(load_source, inside, needle, words):
    text = LOOP.replace("        relax<<<(n + 255) / 256, 256>>>(d_a, d_c, n);\n",
                        inside + "        relax<<<(n + 255) / 256, 256>>>(d_a, d_c, n);\n")
    if "keep" in inside:
        text = text.replace("    cudaFree(d_c);\n", "    cudaFree(d_c);\n    printf(\"%p\\n\", (void *)keep);\n")
        text = text.replace("        float *keep = d_a;\n", "").replace(
            "    for (int t = 0; t < steps; ++t) {\n", "    float *keep;\n    for (int t = 0; t < steps; ++t) {\n"
            "        keep = d_a;\n")
        needle = "(void *)keep"  # its use after the loop (its declaration before it holds nothing)
    after, warnings = rewrite(load_source, text)
    assert after == text
    assert [w.id for w in warnings] == ["transfers-control-flow"]
    assert words in warnings[0].message
    line = next(k for k, t in enumerate(text.splitlines(), 1) if needle.split("\n")[0] in t)
    assert warnings[0].location.line == line


def test_a_rewritten_loop_program_compiles_and_runs_the_same(tmp_path):
    path = tmp_path / "loops.cu"
    path.write_text(LOOP)
    nvcc = shutil.which("nvcc")
    if nvcc:
        out = tmp_path / "out"
        assert main(["transfers", "-q", "-o", str(out), str(path)]) == 0
        proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(out / "loops.cu"), "-o", str(tmp_path / "x.o")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    # 0 and 3 iterations: the loop and the branch may run no time
    for steps in ("0", "3"):
        assert main(["verify", "-q", "--passes", "transfers", "--args", steps, str(path)]) == 0
