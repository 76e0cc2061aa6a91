"""`s2s fuse` end to end: original and fused programs run on the runtime's cpu devices with the
same inputs must give the same outputs (bit-for-bit, or within the sample's stated relative
tolerance for transcendental functions), with fewer launches and no more modelled traffic;
fused files must compile with ``nvcc -c -arch=sm_90``; golden diffs and ``--explain`` notes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import tomllib
from conftest import REPO

from runtime.api import Runtime
from s2s.cli.main import main as cli_main
from s2s.driver import RunOptions, Success, process_file
from s2s.output import unified_diff
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay

GOLDEN = REPO / "testsuite" / "golden" / "fuse"
SMALL = {"n": 3001, "m": 37, "nx": 37, "ny": 45, "rows": 5, "cols": 133}
#: sample -> launches after fusion
RUNS = {"axpydot": 1, "vadd": 1, "waxpby": 1, "gesummv": 1, "sgemvt": 2, "atax": 2,
        "bicgk_tiled": 1, "bicgk": 1, "softmax_chain": 1, "layernorm": 1, "bias_gelu": 1,
        "elementwise_chain": 1, "gemver": 2}


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    monkeypatch.chdir(REPO)


def _fused(name: str) -> Success:
    result = process_file(f"samples/cuda/{name}/{name}.cu", RunOptions(), run_fuse)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    return result


@pytest.mark.parametrize("name", sorted(RUNS))
def test_fused_program_gives_same_outputs(name, runtime):
    path = f"samples/cuda/{name}/{name}.cu"
    with open(f"samples/cuda/{name}/sample.toml", "rb") as handle:
        tolerance = tomllib.load(handle)["tolerance"]
    fused = _fused(name).change.after
    before = replay(path, overrides=SMALL, runtime=runtime)
    after = replay(path, source=fused, overrides=SMALL, runtime=runtime)
    assert before.outputs, "the program copies nothing back"
    assert compare(before, after, tolerance) == []
    assert len(after.launches) == RUNS[name] <= len(before.launches)
    assert after.bytes <= before.bytes
    assert after.bytes >= before.minimum


def test_compare_detects_a_wrong_fusion(runtime):
    """The checker is not blind: breaking the fused kernel (dropping the stage that adds z)
    makes the comparison fail."""
    fused = _fused("vadd").change.after.decode()
    broken = fused.replace("out[i] = s2s_d_t + y[i];", "out[i] = s2s_d_t;", 1)
    assert broken != fused
    path = "samples/cuda/vadd/vadd.cu"
    before = replay(path, overrides=SMALL, runtime=runtime)
    after = replay(path, source=broken.encode(), overrides=SMALL, runtime=runtime)
    assert compare(before, after) != []


HORIZONTAL = """#include <cuda_runtime.h>
__global__ void twice(const float *in, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2.0f * in[i]; }
__global__ void negate(const float *in, float *out, int n)
{
    int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = -in[i];
}
int main()
{
    int n = 1000;
    int m = 333;
    float *h_a = (float *)malloc(n * sizeof(float));
    float *d_a, *d_b, *d_c, *d_d;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMalloc(&d_c, m * sizeof(float));
    cudaMalloc(&d_d, m * sizeof(float));
    cudaMemcpy(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_c, h_a, m * sizeof(float), cudaMemcpyHostToDevice);
    twice<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
    negate<<<(m + 63) / 64, dim3(32, 2)>>>(d_c, d_d, m);
    cudaMemcpy(h_a, d_b, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_a, d_d, m * sizeof(float), cudaMemcpyDeviceToHost);
    return 0;
}
"""


def test_horizontal_fusion_with_different_block_sizes(tmp_path, runtime):
    path = tmp_path / "horizontal.cu"
    path.write_text(HORIZONTAL)
    result = process_file(str(path), RunOptions(), run_fuse)
    fused = result.change.after
    assert b"s2s_count(dim3((n + 255) / 256)) + s2s_count(dim3((m + 63) / 64))" in fused
    before = replay(str(path), runtime=runtime)
    after = replay(str(path), source=fused, runtime=runtime)
    assert after.launches == ["s2s_fused_0"] and compare(before, after) == []


@pytest.mark.parametrize("name", ["axpydot", "softmax_chain", "bicgk", "gemver"])
def test_golden_diff(name, request):
    result = _fused(name)
    notes = "".join(f"{d.headline()}\n" for d in result.diagnostics)
    text = f"{unified_diff(result.change)}\n# diagnostics\n{notes}"
    golden = GOLDEN / f"{name}.diff"
    if request.config.getoption("--update-goldens"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}; run with --update-goldens"
    assert text == golden.read_text()


@pytest.mark.parametrize("name", ["axpydot", "bicgk", "layernorm", "gesummv", "gemver"])
def test_fused_file_compiles_with_nvcc(name, tmp_path):
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)
    if nvcc is None:
        pytest.skip("nvcc not found: skipping the compile check of fused files")
    source = tmp_path / f"{name}.cu"
    source.write_bytes(_fused(name).change.after)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(source), "-o", str(tmp_path / "x.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_cli_explain_lists_made_and_refused(capsys):
    code = cli_main(["fuse", "--explain", "samples/cuda/sgemvt/sgemvt.cu"])
    err = capsys.readouterr().err
    assert code == 0
    assert "fused: gemv_cols#0 + axpby_kernel#1" in err
    assert "not fused: axpby_kernel#1 + gemv_rows#2" in err
    assert "kernel gemv_cols: nested" in err


def test_cli_in_place(tmp_path, capsys):
    target = tmp_path / "vadd.cu"
    target.write_bytes((REPO / "samples/cuda/vadd/vadd.cu").read_bytes())
    assert cli_main(["fuse", "--in-place", str(target)]) == 0
    text = target.read_text()
    assert "s2s_fused_0<<<" in text and "cudaMalloc(&d_t," not in text
