"""Fusion of template kernel instantiations (issue 19, item 5: "instantiated templates").

Each program under ``data/templates`` (and the corpus's ``template_scale``) is fused; the
fused file must compile with ``nvcc -c -arch=sm_90`` and ``s2s verify --passes fuse`` must
run the original and the fused program on the cpu devices with the same outputs. Launches
that cannot be fused (inside a function template, an explicit specialization next to the
template, a struct type argument) are refused with the reason in ``--explain``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from s2s.cli.main import main as cli_main
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse

DATA = REPO / "testsuite" / "fuse" / "data" / "templates"
SCALE = REPO / "testsuite" / "corpus" / "cuda" / "template_scale" / "scale.cu"

#: program -> (launches before, launches after, a fusion --explain must report)
PROGRAMS = {
    SCALE: (3, 2, "fused: offset#1 + scale#2"),
    DATA / "precision_chain.cu": (4, 1, "fused: axpy#0 + square_add#1 + axpy#2 + square_add#3"),
    DATA / "block_param.cu": (2, 1, "fused: reverse_tiles#0 + add_block#1: d_out in a register"),
    DATA / "mixed.cu": (2, 1, "fused: scaled_diff#0 + sum_squares#1: d_d in a register"),
    DATA / "header_user.cu": (3, 1, "fused: smooth3#0 + clamp_to#1 + square#2"),
    DATA / "two_shapes.cu": (2, 1, "fused: blend#0 + blend#1: 2 launch shapes dispatched"),
}


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found is None and Path("/usr/local/cuda/bin/nvcc").is_file():
        found = "/usr/local/cuda/bin/nvcc"
    return found


def _fused(path: Path) -> Success:
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and not result.incomplete, result
    return result


def _notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.id == "fuse-explain"]


@pytest.mark.parametrize("path", list(PROGRAMS), ids=lambda p: p.stem)
def test_template_launches_fuse_compile_and_verify(path, tmp_path, capsys):
    before, after, made = PROGRAMS[path]
    result = _fused(path)
    text = result.change.after.decode()
    assert result.change.before.count(b"<<<") == before
    assert text.count("<<<") == after
    assert any(m.startswith(made) for m in _notes(result)), _notes(result)
    nvcc = _nvcc()
    if nvcc is not None:
        fused = tmp_path / path.name
        fused.write_text(text)
        proc = subprocess.run([nvcc, "-c", "-arch=sm_90", f"-I{path.parent}", str(fused),
                               "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    assert cli_main(["verify", "--passes", "fuse", str(path)]) == 0
    assert "verdict: OK" in capsys.readouterr().out


def test_the_stage_is_the_template_instantiated_at_the_fused_launch():
    """The body stays as written (``BLOCK`` and ``T`` included) in a stage template with the
    kernel's parameter list; the fused kernel calls it with the launch's arguments and
    declares the specialization's types."""
    text = _fused(DATA / "block_param.cu").change.after.decode()
    assert "template <int BLOCK>\nstatic __device__ __forceinline__ void " \
        "s2s_fused_0_stage0_reverse_tiles(const float * in, float * out, int n" in text
    assert "s2s_fused_0_stage0_reverse_tiles<128>(" in text
    assert "s2s_fused_0_stage1_add_block<128>(" in text
    assert "__shared__ float tile[BLOCK];" in text
    chain = _fused(DATA / "precision_chain.cu").change.after.decode()
    # deduced arguments (axpy<<<...>>>(xd, ...)) are written out at the stage call
    assert "s2s_fused_0_stage2_axpy<double>(xd, yd, nullptr" in chain
    assert "double &s2s_td" in chain and "float &s2s_tf" in chain


REFUSED = """#include <cuda_runtime.h>
struct Pair { float a, b; };
template <typename T>
__global__ void scale(T *x, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 2; }
template <>
__global__ void scale<double>(double *x, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 3; }
template <typename V>
__global__ void swap_pair(V *p, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float t = p[i].a; p[i].a = p[i].b; p[i].b = t; } }
__global__ void shift(double *x, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }
__global__ void bump(Pair *p, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i].a += 1; }
template <typename T>
void run(T *x, int n)
{
    scale<T><<<(n + 255) / 256, 256>>>(x, n);
    scale<T><<<(n + 255) / 256, 256>>>(x, n);
}
int main()
{
    int n = 1000;
    double *d; float *f; Pair *p;
    cudaMalloc(&d, n * sizeof(double));
    cudaMalloc(&f, n * sizeof(float));
    cudaMalloc(&p, n * sizeof(Pair));
    scale<double><<<(n + 255) / 256, 256>>>(d, n);
    shift<<<(n + 255) / 256, 256>>>(d, n);
    run(f, n);
    swap_pair<Pair><<<(n + 255) / 256, 256>>>(p, n);
    bump<<<(n + 255) / 256, 256>>>(p, n);
    return 0;
}
"""


def test_template_launches_that_cannot_fuse_say_why(tmp_path):
    path = tmp_path / "refused.cu"
    path.write_text(REFUSED)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert result.change.after == REFUSED.encode()
    notes = _notes(result)
    assert any("scale#0: the launch is inside the template 'run'" in m for m in notes)
    assert any(m.startswith("not fused: scale#0 + shift#1: kernel 'scale' is not fusible: 2 "
                            "definitions of 'scale' (overloads or explicit specializations")
               for m in notes)
    assert any("template argument 'Pair' is not an arithmetic type" in m for m in notes)
