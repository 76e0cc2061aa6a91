"""Every rewrite compiles (issue 18, item 7): where nvcc exists, a CUDA rewrite is compiled with
``nvcc -c`` before it is emitted; one that libclang parses but nvcc rejects is not emitted
(``mgpu-rewrite-invalid``, exit 1). Results are cached by content; the check can be turned off
(``--no-nvcc-check``, ``nvcc-check = false``) and falls back to the parse without nvcc."""

from __future__ import annotations

import json

import pytest

from s2s.cli.main import main
from s2s.transform import nvcc_check

NVCC = nvcc_check.find_nvcc("/usr/local/cuda")

#: clang makes constexpr functions implicitly host+device; nvcc does not (it wants
#: --expt-relaxed-constexpr): the host-side parse accepts this file, nvcc -c refuses it.
CONSTEXPR_HOST = """\
#include <cstdio>
#include <cuda_runtime.h>

constexpr float twice(float x) { return 2.0f * x; }

__global__ void scale(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = twice(a[i]);
}

int main()
{
    const int n = 1024;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    scale<<<n / 256, 256>>>(d, n);
    cudaDeviceSynchronize();
    cudaFree(d);
    printf("done\\n");
    return 0;
}
"""


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("S2S_NVCC_CHECK", "1")     # the suite's conftest turns it off
    path = tmp_path / "scale.cu"
    path.write_text(CONSTEXPR_HOST)
    return path


def _cached(tmp_path) -> list:
    return sorted((tmp_path / "cache" / "s2s" / "nvcc-check").glob("*.json"))


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed: the rewrite check is the "
                    "libclang parse alone")
def test_rewrite_nvcc_rejects_is_not_emitted_and_cached(program, tmp_path, capsys):
    """nvcc's answer is cached by content: an error cached for the rewrite (at a line whose
    original nvcc accepts) keeps it from being emitted; the original's own errors are not the
    rewrite's (issue 29: testsuite/test_nvcc_compare.py)."""
    program.write_text(CONSTEXPR_HOST.replace("constexpr float", "__host__ __device__ float"))
    assert main(["mgpu", str(program)]) == 0
    assert "s2s_mgpu_launch(scale" in capsys.readouterr().out
    (entry,) = _cached(tmp_path)                 # the rewrite's; the original needed no compile
    stored = json.loads(entry.read_text())
    assert stored == {"inputs": entry.stem, "errors": []}  # the inputs' hash, with the verdict
    entry.write_text(json.dumps({"inputs": entry.stem, "errors": [
        [10, "calling a __host__ function from a __global__ function"]]}))
    assert main(["mgpu", str(program)]) == 1
    out, err = capsys.readouterr()
    assert "+++" not in out                      # no diff: nothing emitted
    assert "[mgpu-rewrite-invalid]" in err and "calling a __host__ function" in err
    assert len(_cached(tmp_path)) == 2           # the original compiled once to compare


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_check_off_by_flag_and_config(program, tmp_path, capsys):
    assert main(["mgpu", "--no-nvcc-check", str(program)]) == 0
    assert "s2s_mgpu_launch(scale" in capsys.readouterr().out
    (tmp_path / ".s2s.toml").write_text("nvcc-check = false\n")
    assert main(["mgpu", str(program)]) == 0
    assert "s2s_mgpu_launch(scale" in capsys.readouterr().out
    assert not _cached(tmp_path)                 # nvcc never ran


def test_without_nvcc_the_parse_decides(program, monkeypatch, capsys):
    monkeypatch.setattr("s2s.driver.find_nvcc", lambda cuda_path=None: None)
    assert main(["mgpu", str(program)]) == 0
    assert "s2s_mgpu_launch(scale" in capsys.readouterr().out


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_user_strings_never_reach_a_shell(tmp_path, monkeypatch):
    """-D values become #define lines and odd directories symbolic links: nothing runs."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    marker = tmp_path / "PWNED"
    odd = tmp_path / "inc `touch PWNED2`"
    odd.mkdir()
    (odd / "width.h").write_text("#define WIDTH 4\n")
    source = tmp_path / "ok.cu"
    data = (b'#include "width.h"\n__global__ void k(float *a) { a[threadIdx.x] = WIDTH * 2; }\n')
    flags = [f"-DNAME=$(touch {marker})", f"-I{odd}", "-std=c++17"]
    assert nvcc_check.nvcc_errors(data, str(source), flags, "sm_90", NVCC) == []
    assert not marker.exists() and not (tmp_path / "PWNED2").exists()
    errors = nvcc_check.nvcc_errors(data.replace(b"WIDTH *", b"WIDTH +* +"), str(source), flags,
                                    "sm_90", NVCC)
    assert errors and errors[0].location.line == 2 and errors[0].id == "nvcc-error"


def test_nvcc_quoting_bytes_that_are_not_utf8_is_an_error_not_a_crash(tmp_path, monkeypatch):
    """Fuzz seed 78224959: nvcc quoted a string literal with a \\xc0 byte of the rewrite in its
    error, and decoding its output strictly ended the file in an internal error."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fake = tmp_path / "nvcc"
    fake.write_text("#!/bin/sh\n"
                    "case \"$1\" in --version) echo 'Cuda compilation tools, release 13.0'; exit 0;; esac\n"
                    "printf 'rewrite.cu(1): error: bad literal \"\\300\\300\"\\n' >&2\nexit 1\n")
    fake.chmod(0o755)
    found = nvcc_check.nvcc_errors(b'const char *s = "\xc0\xc0";\n', str(tmp_path / "k.cu"), (),
                                   "sm_90", str(fake))
    assert found is not None and len(found) == 1
    assert "bad literal" in found[0].message and "\ufffd" in found[0].message
