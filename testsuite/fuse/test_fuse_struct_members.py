"""``s2s fuse`` of kernels whose buffers are pointer members of a struct passed by value
(issue 29, item 4: XSBench's ``SimulationData GSD`` built by a helper), and one definition
for fused kernels that two runs of a file make alike.

A kernel ``seed_k(Fields f, ...)`` writing ``f.u[i]`` is a map over the buffer ``f.u`` (the
kernel's copy of the struct holds the caller's pointers); the launch passing the struct
variable ``f`` names that buffer ``f.u``. Before, such kernels were "not fusible: writes
through a pointer member of a struct"."""

from __future__ import annotations

import json
import shutil

import pytest

from runtime.api import Runtime
from s2s.analysis.kernel.members import flatten_members
from s2s.cli.main import main as cli_main
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay
from testsuite.fuse.fuse_support import SCALE_SHIFT, fused_sets, planned, refusals

FIELDS = """\
#include <cstdio>
#include <cstdlib>
struct Fields {
    float *u;
    float *v;
    float *w;
    int n;
};
static Fields make_fields(int n)
{
    Fields f;
    f.n = n;
    cudaMalloc((void **)&f.u, n * sizeof(float));
    cudaMalloc((void **)&f.v, n * sizeof(float));
    cudaMalloc((void **)&f.w, n * sizeof(float));
    return f;
}
__global__ void seed_k(Fields f, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= f.n)
        return;
    f.u[i] = a * (i % 17);
}
__global__ void square_k(Fields f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < f.n)
        f.v[i] = f.u[i] * f.u[i] + 1.0f;
}
__global__ void spread_k(Fields f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < f.n)
        f.w[i] = f.v[(i + 200) % f.n] - f.u[i];
}
static void step(Fields f, float a)
{
    int threads = 128;
    int blocks = (f.n + threads - 1) / threads;
    seed_k<<<blocks, threads>>>(f, a);
    square_k<<<blocks, threads>>>(f);
    spread_k<<<blocks, threads>>>(f);
    cudaDeviceSynchronize();
}
int main()
{
    int n = 1000;
    Fields f = make_fields(n);
    step(f, 0.25f);
    float *h = (float *)malloc(n * sizeof(float));
    cudaMemcpy(h, f.w, n * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += h[i];
    printf("checksum %.3f\\n", sum);
    cudaFree(f.u);
    cudaFree(f.v);
    cudaFree(f.w);
    free(h);
    return 0;
}
"""


def test_struct_members_are_buffers_of_their_own():
    """seed_k and square_k (f.u written, then read by the same thread) fuse; spread_k reads
    f.v of other blocks (RAW across blocks) and is left, with the member in the reason."""
    facts, plans = planned(FIELDS)
    assert facts["seed_k"].members == (("f", "u"),)
    assert facts["square_k"].members == (("f", "v"), ("f", "u"))
    assert facts["seed_k"].kind == "map" and facts["spread_k"].kind == "map"
    assert fused_sets(plans) == [["seed_k", "square_k"]]
    [run] = [run for run, _groups, _decisions in plans]
    assert run.nodes[1].buffers == {"f.v": "f.v", "f.u": "f.u"}
    assert any("spread_k reads f.v elements that other blocks of square_k wrote" in r
               for r in refusals(plans)), refusals(plans)


def test_a_struct_used_whole_is_not_followed(load_source):
    """A kernel passing its struct to a device function: a callee could reach any member,
    so the members stay unknown and the kernel is not fusible, saying why."""
    text = FIELDS.replace("__global__ void seed_k(Fields f, float a)\n{",
                          "__device__ float first(Fields g) { return g.w[0]; }\n"
                          "__global__ void seed_k(Fields f, float a)\n{\n    a += first(f);")
    facts, plans = planned(text)
    assert facts["seed_k"].members == () and facts["seed_k"].kind == "other"
    assert "struct parameter 'f' is used as a whole" in facts["seed_k"].detail
    assert fused_sets(plans) == []
    body = load_source(text).model.kernel_body("seed_k")
    assert "used as a whole" in flatten_members(body).why


def test_a_pointer_copied_into_a_member_refuses_the_launch():
    """``f.v = f.u;`` in the launching function: the two members may be one buffer (as a
    pointer variable copied from another), so the launches passing ``f`` are not fused."""
    text = FIELDS.replace("    int threads = 128;\n", "    f.v = f.u;\n    int threads = 128;\n", 1)
    _facts, plans = planned(text)
    assert fused_sets(plans) == []
    assert any("is reassigned in 'step' (aliasing)" in r for r in refusals(plans)), \
        refusals(plans)


def test_a_member_the_helper_points_at_another_buffer_is_not_a_buffer_of_its_own():
    """``f.w = f.v;`` in the helper that fills the struct: spread_k's ``f.w`` may be
    ``f.v``, so its launch is refused as aliasing; seed_k + square_k (u, v) still fuse."""
    text = FIELDS.replace("    cudaMalloc((void **)&f.w, n * sizeof(float));\n",
                          "    f.w = f.v;\n")
    _facts, plans = planned(text)
    assert fused_sets(plans) == [["seed_k", "square_k"]]
    assert any("'f.w' is given a pointer in 'make_fields'" in r for r in refusals(plans)), \
        refusals(plans)


def test_struct_member_fusion_verifies_on_cpu_devices(tmp_path, capsys, monkeypatch):
    if shutil.which("g++") is None or shutil.which("nvcc") is None:
        pytest.skip("verify builds the programs with g++ and checks the rewrite with nvcc")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    program = tmp_path / "fields.cu"
    program.write_text(FIELDS)
    code = cli_main(["verify", "--format", "json", "--passes", "fuse", "--devices", "2",
                     str(program)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    [verdict] = json.loads(out)["programs"]
    assert verdict["ok"], verdict
    assert verdict["original"]["devices"]["launches"] == 3
    assert verdict["rewritten"]["devices"]["launches"] == 2


#: the same pair of launches in both branches of a time step (buffers swapped): one fused
#: kernel, launched from both places
TWICE = """#include <cstdio>
""" + SCALE_SHIFT + """\
int main()
{
    int n = 1000;
    int parity = 1;
    float h[1000];
    for (int i = 0; i < n; i++) h[i] = 0.25f * i;
    float *x, *y, *z;
    cudaMalloc((void **)&x, n * sizeof(float));
    cudaMalloc((void **)&y, n * sizeof(float));
    cudaMalloc((void **)&z, n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    if (parity) {
        scale_k<<<(n + 127) / 128, 128>>>(y, x, 2.0f, n);
        shift_k<<<(n + 127) / 128, 128>>>(z, y, 1.0f, n);
    }
    if (parity) {
        scale_k<<<(n + 127) / 128, 128>>>(y, z, 0.5f, n);
        shift_k<<<(n + 127) / 128, 128>>>(x, y, 3.0f, n);
    }
    cudaMemcpy(h, x, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[1], h[n - 1]);
    cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[1], h[n - 1]);
    return 0;
}
"""


def test_identical_fused_kernels_are_one_definition(tmp_path):
    path = tmp_path / "twice.cu"
    path.write_text(TWICE)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and result.change.changed
    after = result.change.after.decode()
    assert after.count("__global__ void s2s_fused_0(") == 1 and "s2s_fused_1" not in after
    assert after.count("s2s_fused_0<<<") == 2
    assert after.count("stage0_scale_k(") == 2            # its definition and its one call
    runtime = Runtime("cpu", 1, threads=2)
    before = replay(str(path), runtime=runtime, module_source=result.change.after,
                    traffic=False)
    fused = replay(str(path), source=result.change.after, runtime=runtime, traffic=False)
    assert len(before.launches) == 4 and len(fused.launches) == 2
    assert compare(before, fused) == []
