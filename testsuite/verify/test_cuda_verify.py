"""``s2s verify`` on CUDA programs: the original runs through the host shim on one cpu device,
the rewrite through the shim (transfers, fuse, omp) or, once mgpu made it a program of the s2s
runtime, built with nvcc and run on several cpu devices.

The passes are the real ones on samples/cuda; broken rewrites come from passes the tests
register (a changed kernel constant, a changed exit status, a printed value off by a relative
1e-7) and from the mgpu pass given an access model that forgets a kernel's reads (right on one
device, wrong once the launch is split).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import mgpu as mgpu_pass
from s2s.transform import registry
from s2s.verify.cuda_backend import traffic_of

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "cuda"
SAXPY = SAMPLES / "saxpy" / "saxpy.cu"


@pytest.fixture(scope="module", autouse=True)
def toolchain():
    if shutil.which("g++") is None:
        pytest.skip("no g++ to build CUDA host code against the shim")
    from runtime.capi_build import build_library
    from runtime.errors import BackendUnavailable

    try:
        build_library()
    except BackendUnavailable as error:
        pytest.skip(f"the runtime's C interface is unavailable: {error}")


@pytest.fixture(autouse=True)
def two_threads(monkeypatch):
    monkeypatch.setenv("S2S_CPU_THREADS", "2")


def need_nvcc():
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: the mgpu rewrite is built with it")


def replacing(old: bytes, new: str):
    def run_pass(loaded):
        at = loaded.source.find(old)
        assert at >= 0, old
        return PassOutput((Edit(loaded.path, at, len(old), new),))
    return run_pass


def verify(capsys, *args):
    code = main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def verify_json(capsys, *args):
    code, out, err = verify(capsys, "--format", "json", *args)
    return code, (json.loads(out)["programs"] if out.strip() else None), err


def sample(name: str) -> Path:
    return SAMPLES / name / f"{name}.cu"


def test_default_passes_on_saxpy_report_what_each_version_moved(capsys):
    need_nvcc()
    n = 5000
    code, [verdict], err = verify_json(capsys, "--args", n, SAXPY)
    assert code == 0, err
    assert verdict["kind"] == "cuda" and verdict["ok"] and verdict["changed"] == [str(SAXPY)]
    assert verdict["differences"] == []
    original, rewritten = verdict["original"], verdict["rewritten"]
    # two uploads (x, y) and one download (y) of n floats, one launch on one device
    assert original["copies"] == {"h2d_count": 2, "h2d_bytes": 8 * n, "d2h_count": 1,
                                  "d2h_bytes": 4 * n}
    assert original["devices"] == {"devices": 1, "d2d_count": 0, "d2d_bytes": 0, "launches": 1,
                                   "split_launches": 0, "cuda_malloc": 2}
    # transfers pooled x and y (one cudaMalloc, one upload, padding included); mgpu split the
    # launch over the 2 devices, and the upload waited for it (runtime/placement.py): each
    # device got what it reads, so nothing moves between them
    assert rewritten["copies"]["h2d_count"] == 1 and rewritten["copies"]["d2h_count"] == 1
    assert 8 * n <= rewritten["copies"]["h2d_bytes"] < 8 * n + 256
    assert rewritten["copies"]["d2h_bytes"] == 4 * n
    assert rewritten["devices"]["devices"] == 2 and rewritten["devices"]["cuda_malloc"] == 1
    assert rewritten["devices"]["split_launches"] == 1 and rewritten["devices"]["d2d_bytes"] == 0
    assert "1 program(s) verified: 1 same behaviour, 0 failed" in err


@pytest.mark.parametrize("name, passes, args", [
    ("horner", "transfers", "256"),
    ("axpydot", "fuse", "1000"),
    ("softmax_chain", "fuse", "16 100"),
    ("cholesky_tiles", "transfers", "8"),
    ("saxpy", "omp", "300"),
])
def test_each_plain_cuda_pass(capsys, name, passes, args):
    code, [verdict], err = verify_json(capsys, "--passes", passes, "--args", args,
                                       "--tolerance", "1e-5", sample(name))
    assert code == 0, err
    original, rewritten = verdict["original"], verdict["rewritten"]
    assert original["devices"]["devices"] == rewritten["devices"]["devices"] == 1
    before, after = original["devices"], rewritten["devices"]
    calls = lambda run: run["copies"]["h2d_count"] + run["copies"]["d2h_count"]  # noqa: E731
    if passes == "transfers":  # fewer cudaMemcpy and cudaMalloc calls, same launches
        assert calls(rewritten) < calls(original) and after["cuda_malloc"] == 1
        assert after["launches"] == before["launches"]
    elif passes == "fuse":  # fewer launches, same copies
        assert after["launches"] < before["launches"] and calls(rewritten) == calls(original)
    else:  # omp changes no CUDA file: both runs are the same program
        assert verdict["changed"] == [] and rewritten == original


def test_mgpu_on_hotspot_splits_every_step(capsys):
    need_nvcc()
    width, height, steps, devices = 64, 40, 5, 3
    code, [verdict], err = verify_json(capsys, "--passes", "mgpu", "--devices", devices,
                                       "--args", f"{width} {height} {steps}",
                                       sample("hotspot"))
    assert code == 0, err
    original, rewritten = verdict["original"]["devices"], verdict["rewritten"]["devices"]
    assert original["split_launches"] == 0 and original["d2d_bytes"] == 0
    assert rewritten["devices"] == devices and rewritten["split_launches"] == steps
    # the halo rows cross between devices after the first step, 2 (P - 1) rows a step; the first
    # step's come from the host with the copy, which waited for it (runtime/placement.py)
    halo = 2 * (devices - 1) * width * 4
    assert rewritten["d2d_bytes"] == halo * (steps - 1)
    before, after = verdict["original"]["copies"], verdict["rewritten"]["copies"]
    assert after == {**before, "h2d_bytes": before["h2d_bytes"] + halo}


def test_changed_kernel_is_caught(capsys, monkeypatch):
    monkeypatch.setitem(registry.PASSES, "wrong", replacing(b"a * x[i] + y[i]", "a * x[i] - y[i]"))
    code, out, err = verify(capsys, "--passes", "wrong", "--args", "100", SAXPY)
    assert code == 1
    assert "outputs differ in" in err and "[verify-output]" in err
    assert "checksum" in err  # the first difference is shown
    assert "verdict: FAILED" in out and "DIFFERENT" in out


def test_model_that_forgets_reads_is_caught_once_the_launch_is_split(capsys, monkeypatch):
    """The rewrite is right on one device and wrong on three: the runtime trusts the access
    model, so a device computes with the parts of x it never received."""
    need_nvcc()
    real_plan = mgpu_pass.plan_file

    def forgetful_plan(model, source, headers=(), header_texts=None):
        plan = real_plan(model, source, headers, header_texts)
        for kernel in plan.kernels:
            kernel.access["arrays"]["x"]["read"] = None
        return plan

    monkeypatch.setattr(mgpu_pass, "plan_file", forgetful_plan)
    args = ("--passes", "mgpu", "--args", "1000", SAXPY)
    code, [verdict], err = verify_json(capsys, "--devices", 1, *args)
    assert code == 0, err
    code, [verdict], err = verify_json(capsys, "--devices", 3, *args)
    assert code == 1 and verdict["differences"] and "[verify-output]" in err
    assert verdict["rewritten"]["devices"]["split_launches"] == 1


def test_tolerance_and_exit_status(capsys, monkeypatch):
    monkeypatch.setitem(registry.PASSES, "close", replacing(
        b'printf("checksum %.10g\\n", checksum)', 'printf("checksum %.10g\\n", checksum * 1.0000001)'))
    monkeypatch.setitem(registry.PASSES, "exit3", replacing(b"return 0;\n}", "return 3;\n}"))
    code, _, err = verify(capsys, "--passes", "close", "--args", "1000", SAXPY)
    assert code == 1 and "[verify-output]" in err
    code, out, err = verify(capsys, "--passes", "close", "--args", "1000", "--tolerance", "1e-6",
                            SAXPY)
    assert code == 0, err
    assert "equal within relative tolerance 1e-06; verdict: OK" in out
    code, _, err = verify(capsys, "--passes", "exit3", "--args", "100", SAXPY)
    assert code == 1 and "exit status differs: original 0, rewritten 3 [verify-exit-status]" in err
    assert "the rewritten program exited with status 3" in err


def test_arguments_and_macros_reach_both_programs(capsys, monkeypatch, tmp_path):
    """--args go to both runs; -D after -- reaches the parser, the host compile and the kernels
    the runtime compiles."""
    program = tmp_path / "scale.cu"
    program.write_text("""\
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#ifndef SCALE
#define SCALE 1
#endif
__global__ void scale(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = SCALE * i;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 8;
    int *h = (int *)malloc(n * sizeof(int)), *d;
    cudaMalloc(&d, n * sizeof(int));
    scale<<<(n + 63) / 64, 64>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("n=%d host SCALE=%d last=%d\\n", n, SCALE, h[n - 1]);
    cudaFree(d);
    free(h);
    return 0;
}
""")
    monkeypatch.setitem(registry.PASSES, "same", lambda loaded: PassOutput(()))
    code, out, err = verify(capsys, "--passes", "same", "--args", "100", "--format", "json",
                            program, "--", "-DSCALE=3")
    assert code == 0, err
    [verdict] = json.loads(out)["programs"]
    assert verdict["original"]["copies"]["d2h_bytes"] == 400
    monkeypatch.setitem(registry.PASSES, "wrong", replacing(b"SCALE * i", "SCALE * i + 1"))
    code, _, err = verify(capsys, "--passes", "wrong", "--args", "100", program, "--",
                          "-DSCALE=3")
    assert code == 1
    assert "expected 'n=100 host SCALE=3 last=297', got 'n=100 host SCALE=3 last=298'" in err


def test_what_cannot_be_verified_says_why(capsys, tmp_path):
    # launches inside function templates run since issue 29 (the call chain names each
    # instantiation: samples/cuda/template_launch); a macro whose body holds two launches
    # (used with different kernels) cannot be given one launcher call
    template = sample("template_launch")
    code, _, err = verify(capsys, "--passes", "transfers", template)
    assert code == 0, err
    program = tmp_path / "twice.cu"
    program.write_text(MACRO_LAUNCHES.replace(
        "#define CHECK(call)", "#define TWICE(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__); "
        "k<<<g, b>>>(__VA_ARGS__)\n#define CHECK(call)").replace(
        "    cudaMemcpy(g, dy", "    TWICE(scale, 1, 32, dx, 1.0f, 32);\n    cudaMemcpy(g, dy"))
    code, out, err = verify(capsys, "--passes", "transfers", program)
    assert code == 2 and out == ""
    assert "through macro 'TWICE'" in err and "holds 2 launches" in err
    assert "[verify-cuda-unsupported]" in err
    # (kernels of another .cu file run since issue 18: testsuite/mgpu/test_mgpu_separate_files.py)


def test_traffic_from_runtime_statistics():
    stats = {"backend": "cpu", "devices": 2,
             "calls": {"malloc": 3, "memcpy_h2d": 2, "memcpy_d2h": 1, "memcpy_d2d": 1},
             "memcpy_links": {"host->cpu0": 100, "host->cpu1": 60, "cpu0->host": 40,
                              "cpu0->cpu0": 500, "cpu1->cpu0": 8},
             "launches": [{"kernel": "k", "partitioned": True, "boxes": 2,
                           "links": {"cpu0->cpu1": 16, "host->cpu1": 4}},
                          {"kernel": "k", "partitioned": True, "boxes": 1, "links": {}},
                          {"kernel": "r", "partitioned": False, "boxes": 1,
                           "links": {"cpu1->cpu0": 32}}]}
    copies, traffic = traffic_of(stats)
    assert (copies.h2d_count, copies.h2d_bytes, copies.d2h_count, copies.d2h_bytes) == \
        (2, 164, 1, 40)
    # the copy within cpu0 moved nothing between devices; one launch ran on one box
    assert (traffic.devices, traffic.d2d_calls, traffic.d2d_bytes, traffic.launches,
            traffic.partitioned, traffic.mallocs) == (2, 1, 56, 3, 1, 3)


MAIN_OF_TWO = """\
#include <cstdio>
float smooth_and_sum(float *d, int n);
__global__ void fill(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = i % 7; }
int main()
{
    const int n = 3000;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    fill<<<(n + 127) / 128, 128>>>(d, n);
    printf("sum %.2f\\n", smooth_and_sum(d, n));
    cudaFree(d);
    return 0;
}
"""
STENCIL_OF_TWO = """\
#include <vector>
__global__ void smooth(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3;
    else if (i < n) out[i] = in[i];
}
float smooth_and_sum(float *d, int n)
{
    float *t;
    cudaMalloc(&t, n * sizeof(float));
    smooth<<<(n + 255) / 256, 256>>>(d, t, n);
    std::vector<float> h(n);
    cudaMemcpy(h.data(), t, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(t);
    double s = 0;
    for (float v : h) s += v;
    return (float)s;
}
"""


def test_a_program_of_two_cu_files_is_built_file_by_file_and_linked(capsys, tmp_path):
    """Each file launches its own kernels; a device pointer crosses from one to the other."""
    need_nvcc()
    (tmp_path / "main.cu").write_text(MAIN_OF_TWO)
    (tmp_path / "stencil.cu").write_text(STENCIL_OF_TWO)
    code, [verdict], err = verify_json(capsys, "--devices", 3, "--passes", "mgpu",
                                       tmp_path / "main.cu", tmp_path / "stencil.cu")
    assert code == 0, err
    assert verdict["ok"] and len(verdict["changed"]) == 2
    assert verdict["rewritten"]["devices"]["split_launches"] == 2


MACRO_LAUNCHES = r"""#include <cstdio>
#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)
#define LAUNCH_CHECKED(k, g, b, ...) do { k<<<g, b>>>(__VA_ARGS__); \
    if (cudaGetLastError() != cudaSuccess) { printf("launch failed\n"); return 1; } } while (0)
#define CHECK(call) do { if ((call) != cudaSuccess) return 2; } while (0)

__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
__global__ void add(float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}
int main() {
    const int n = 300;
    float h[n], g[n];
    for (int i = 0; i < n; ++i) { h[i] = i; g[i] = 1; }
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, g, n * sizeof(float), cudaMemcpyHostToDevice);
    LAUNCH(scale, (n + 63) / 64, 64, dx, 2.0f, n);
    LAUNCH(add, (n + 63) / 64, 64, dy, dx, n);
    LAUNCH_CHECKED(scale, (n + 63) / 64, 64, dy, 0.5f, n);
    CHECK((add<<<(n + 63) / 64, 64>>>(dy, dx, n), cudaGetLastError()));
    cudaMemcpy(g, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    double s = 0;
    for (int i = 0; i < n; ++i) s += g[i];
    printf("sum %.1f\n", s);
    return 0;
}
"""


def test_launches_through_macros_run_in_the_shim_and_fuse_at_the_call(capsys, tmp_path):
    """The original's launches written through a forwarding macro, a checking macro and in a
    checking macro's argument run in verify's host shim (issue 29 item 4); fuse replaces the
    two calls of the forwarding macro by one launch, and the rewrite prints the same."""
    program = tmp_path / "macros.cu"
    program.write_text(MACRO_LAUNCHES)
    code, [verdict], err = verify_json(capsys, "--passes", "fuse", program)
    assert code == 0, err
    assert verdict["ok"] and verdict["changed"] == [str(program)]
    assert verdict["original"]["devices"]["launches"] == 4
    assert verdict["rewritten"]["devices"]["launches"] == 3
