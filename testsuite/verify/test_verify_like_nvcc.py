"""``s2s verify`` builds what nvcc builds (issue 29, item 2): the host shim sees what nvcc's
implicit include of the CUDA runtime header gives (``sqrt``, ``ceil``, ``malloc`` without their
headers), the user's ``-include``, ``-isystem`` and ``-x cu`` are honoured, ``--args`` takes a
string that starts with ``-``, and the calls CUDA 13 removed run, also under a user's own
``-DcudaThreadSynchronize=cudaDeviceSynchronize``."""

from __future__ import annotations

import json
import shutil

import pytest

from s2s.cli.common import joined_values
from s2s.cli.main import build_parser, main
from s2s.driver import PassOutput
from s2s.transform import registry


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
def unchanged(monkeypatch):
    """A pass that changes nothing: these tests are about building the programs."""
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    monkeypatch.setitem(registry.PASSES, "same", lambda loaded: PassOutput(()))


#: no #include of math.h, stdlib.h or the CUDA header: nvcc builds it, as it did the original
NO_HEADERS = """\
#include <cstdio>
__global__ void grid(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = STEP * i;
}
int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 10;
    float *h = (float *)malloc(n * sizeof(float)), *d;
    cudaMalloc((void **)&d, n * sizeof(float));
    grid<<<(int)ceil(n / 64.0), 64>>>(d, n);
    cudaThreadSynchronize();
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%s n=%d root=%.3f\\n", argc > 1 ? argv[1] : "-", n, sqrt(h[n - 1]));
    cudaFree(d);
    free(h);
    cudaThreadExit();
    return 0;
}
"""


def _verify(capsys, *args) -> tuple[int, dict | None, str]:
    code = main(["verify", "--passes", "same", "--format", "json", *map(str, args)])
    out, err = capsys.readouterr()
    return code, (json.loads(out)["programs"][0] if out.strip() else None), err


def _program(tmp_path, name: str = "grid.cu", text: str = NO_HEADERS):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_math_without_its_header_and_removed_calls_build(capsys, tmp_path):
    """(each verify builds two programs: the cases share runs)"""
    code, verdict, err = _verify(capsys, _program(tmp_path), "--", "-DSTEP=2.0f",
                                 "-DcudaThreadSynchronize=cudaDeviceSynchronize",
                                 "-include", "math.h")
    assert code == 0, err
    assert verdict["ok"] and verdict["original"]["copies"]["d2h_bytes"] == 40


def test_include_isystem_x_cu_and_dashed_args(capsys, tmp_path, monkeypatch):
    """-isystem and a local -include reach the host compile and the kernels; -x cu makes a .cpp
    file a CUDA program; --args "-x 32" reaches the program (n = 32 from argv[2])."""
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "step.h").write_text("#define STEP 3.0f\n")
    (tmp_path / "pre.h").write_text("#include <step.h>\n")
    monkeypatch.chdir(tmp_path)                  # -include pre.h: found in the working directory
    code, verdict, err = _verify(capsys, "--args", "-x 32", _program(tmp_path, "grid.cpp"), "--",
                                 "-isystem", "sys", "-include", "pre.h", "-x", "cu")
    assert code == 0, err
    assert verdict["kind"] == "cuda" and verdict["ok"]
    assert verdict["original"]["copies"]["d2h_bytes"] == 128


@pytest.mark.parametrize("form", [["--args", "-x 32"], ["--args=-x 32"], ["--args", "-v"]])
def test_args_value_is_never_an_option(form):
    argv = joined_values(["verify", *form, "a.cu"], ("--args",))
    args = build_parser().parse_args(argv)
    assert args.args == form[-1].removeprefix("--args=") and args.files == ["a.cu"]
    assert args.language is None
