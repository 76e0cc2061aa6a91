"""Launches through a local function pointer (cuda-samples transpose: ``kernel = &copy; ...
kernel<<<grid, threads>>>(...)`` in a loop over kernels, ``if (kernel == &copy)`` to pick the
reference): the launch runs the kernels the pointer can hold (``Launch.targets``, from the
declaration's assignments in the AST), mgpu rewrites it (the runtime finds the kernel by its
address in the file's table) and verify's host shim runs it (the kernel's name chosen by the
pointer's value). A pointer whose values the file does not show is refused with the reason."""

from __future__ import annotations

import json
import shutil

import pytest

from s2s.analysis.mgpu.plan import plan_file
from s2s.cli.main import main
from s2s.frontend.extract import load

PROGRAM = """\
#include <cstdio>
__global__ void copy_rows(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
__global__ void scale_rows(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}
int main()
{
    const int n = 2048;
    void (*kernel)(float *, const float *, int);
    const char *label;
    static float host[2048];
    float *d_in, *d_out;
    for (int i = 0; i < n; ++i) host[i] = 0.5f * i;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_out, n * sizeof(float));
    cudaMemcpy(d_in, host, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 0) { kernel = &copy_rows; label = "copy"; }
        else { kernel = scale_rows; label = "scale"; }
        kernel<<<n / 256, 256>>>(d_out, d_in, n);
        cudaMemcpy(host, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
        double sum = 0;
        for (int i = 0; i < n; ++i) sum += host[i];
        printf("%s%s %.1f\\n", label, kernel == &copy_rows ? " (reference)" : "", sum);
        for (int i = 0; i < n; ++i) host[i] = 0.5f * i;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
"""

#: the pointer handed to a function that may give it anything: not followed
ESCAPING = PROGRAM.replace("int main()\n{", "void pick(void (**k)(float *, const float *, int));\n"
                           "int main()\n{").replace("const char *label;",
                                                    "const char *label; pick(&kernel);")


def _loaded(tmp_path, text: str):
    path = tmp_path / "pointer_launch.cu"
    path.write_text(text)
    loaded = load(str(path))
    assert loaded.model is not None, loaded.diagnostics
    return loaded


def test_the_launch_runs_every_kernel_the_pointer_is_given(tmp_path):
    loaded = _loaded(tmp_path, PROGRAM)
    [launch] = loaded.model.launches
    assert launch.kernel == "kernel" and launch.through_pointer
    assert launch.targets == ("copy_rows", "scale_rows")    # '&f' and 'f'; '==' only reads
    plan = plan_file(loaded.model, loaded.source)
    assert not plan.refusals
    assert [t.kernel_text for t in plan.launches] == ["kernel"]


def test_a_pointer_the_file_does_not_show_every_value_of_is_refused_with_the_reason(tmp_path):
    loaded = _loaded(tmp_path, ESCAPING)
    [launch] = loaded.model.launches
    assert launch.through_pointer and launch.targets == ()
    [refusal] = plan_file(loaded.model, loaded.source).refusals
    assert "'kernel' is a function pointer whose values the file does not all show" \
        in refusal.message
    assert "not defined in this file" not in refusal.message


def test_mgpu_splits_the_pointer_launch_and_verifies(capsys, tmp_path, monkeypatch):
    if shutil.which("g++") is None or shutil.which("nvcc") is None:
        pytest.skip("verify builds the original with g++ and the mgpu rewrite with nvcc")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    program = tmp_path / "pointer_launch.cu"
    program.write_text(PROGRAM)
    code = main(["verify", "--format", "json", "--passes", "mgpu", "--devices", "2",
                 str(program)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    [verdict] = json.loads(out)["programs"]
    assert verdict["ok"], verdict
    original, rewritten = verdict["original"]["devices"], verdict["rewritten"]["devices"]
    assert original["launches"] == rewritten["launches"] == 2
    assert rewritten["split_launches"] == 2                  # both kernels partitioned over 2 devices
