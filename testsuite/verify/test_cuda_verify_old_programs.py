"""Programs written for older toolkits and built from mixed sources, as Rodinia's gaussian and
lud are (issue 29): through ``s2s verify`` as a new user runs them.

* A file that reads ``cudaDeviceProp::clockRate`` (removed in CUDA 13): the toolkit's
  headers reject it, s2s's own headers accept it; it is parsed against those with a warning
  (``cuda-toolkit-rejects``), the compile check blames the original for nvcc's error, the
  mgpu rewrite names the runtime's ``LegacyDeviceProp`` so nvcc 13 builds it, and verify's
  host shim builds the original.
* A program of ``.cu`` files and a ``.c`` file (``../common/common.c``): the C file is built
  by the host compiler into both programs; the passes rewrite the ``.cu`` files.
* "rewritten files" lists a ``.cu`` file included as text that mgpu rewrote in place.
"""

from __future__ import annotations

import json
import shutil

import pytest

from s2s.cli.main import main
from s2s.driver import RunOptions, process_file
from s2s.frontend.core.parse import LEGACY_PARSE_ID, ParseOptions, parse_source
from s2s.frontend.core.toolchain import default_toolchain
from s2s.transform.fuse import run_fuse
from s2s.transform.mgpu import run_mgpu
from s2s.transform.transfers import run_transfers
from s2s.verify.cuda_backend import rewritten_beside
from s2s.wrapper.rewrite import chain_passes

CLOCK = r"""#include <cstdio>
#include "table.h"
__global__ void twice(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 2.0f * x[i] + (float)offset_of(i);
}
int main() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("clock %d kHz, overlap %d, %d SMs\n", prop.clockRate, prop.deviceOverlap,
           prop.multiProcessorCount);
    const int n = 200;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = i;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    twice<<<(n + 63) / 64, 64>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("h[199] = %.1f, table %d\n", h[199], table_sum(4));
    cudaFree(d);
    return 0;
}
"""
TABLE_H = """#ifndef TABLE_H
#define TABLE_H
#ifdef __cplusplus
extern "C" {
#endif
int table_sum(int upto);
#ifdef __cplusplus
}
#endif
#define offset_of(i) ((i) % 3)
#endif
"""
TABLE_C = """#include "table.h"
int table_sum(int upto)
{
    int s = 0, k;
    for (k = 0; k <= upto; k++)
        s += k * k;
    return s;
}
"""


def real_toolkit():
    if default_toolchain().cuda_path is None:
        pytest.skip("no CUDA toolkit: the parse uses s2s's headers from the start")


def need_builds(nvcc: bool = False):
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        pytest.skip("no gcc/g++ to build the host code")
    if nvcc and shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: the mgpu rewrite is built with it")


def _program(tmp_path):
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "table.h").write_text(TABLE_H)
    (tmp_path / "common" / "table.c").write_text(TABLE_C)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "clock.cu").write_text(CLOCK)
    return tmp_path / "app" / "clock.cu", tmp_path / "common" / "table.c"


def test_a_removed_member_is_parsed_against_s2s_headers_with_a_warning(tmp_path):
    real_toolkit()
    source, _ = _program(tmp_path)
    options = ParseOptions(user_flags=(f"-I{tmp_path / 'common'}",))
    parsed = parse_source(source.read_bytes(), str(source), options)
    assert not parsed.has_errors, [d.headline() for d in parsed.diagnostics]
    [said] = [d for d in parsed.diagnostics if d.id == LEGACY_PARSE_ID]
    assert "clockRate" in said.message and said.location.line == 10
    broken = parse_source(b"int main() { undeclared_thing(); }\n", "broken.cu", options)
    assert broken.has_errors and not any(d.id == LEGACY_PARSE_ID for d in broken.diagnostics)


def test_mgpu_names_the_runtime_legacy_prop_only_for_such_a_file(tmp_path, monkeypatch):
    real_toolkit()
    source, _ = _program(tmp_path)
    monkeypatch.chdir(source.parent)
    options = RunOptions(parse=ParseOptions(user_flags=("-I../common",)))
    result = process_file(str(source), options, run_mgpu)
    assert result.status == "ok", [d.headline() for d in result.diagnostics]
    after = result.change.after.decode()
    assert "#define cudaDeviceProp s2s_mgpu::LegacyDeviceProp" in after
    plain = source.parent / "plain.cu"
    plain.write_text(CLOCK.replace("prop.clockRate, prop.deviceOverlap", "1, 2"))
    again = process_file(str(plain), options, run_mgpu)
    assert again.status == "ok" and "LegacyDeviceProp" not in again.change.after.decode()


def _verify(capsys, *args):
    code = main(["verify", "--format", "json", *map(str, args)])
    out, err = capsys.readouterr()
    return code, (json.loads(out)["programs"] if out.strip() else None), err


@pytest.mark.parametrize("passes", ["transfers", "mgpu"])
def test_a_program_of_cu_and_c_files_printing_a_removed_member_verifies(capsys, tmp_path,
                                                                        monkeypatch, passes):
    need_builds(nvcc=passes == "mgpu")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    source, helper = _program(tmp_path)
    monkeypatch.chdir(source.parent)
    code, [verdict], err = _verify(capsys, "--passes", passes, "--devices", 2, "clock.cu",
                                   "../common/table.c", "--", "-I../common")
    assert code == 0, err
    # (one buffer, one copy each way: nothing for transfers to merge; mgpu rewrites the file)
    assert verdict["ok"] and verdict["changed"] == ([] if passes == "transfers" else ["clock.cu"])
    assert verdict["original"]["returncode"] == 0 and verdict["differences"] == []
    if passes == "mgpu":
        assert verdict["rewritten"]["devices"]["split_launches"] == 1
    if default_toolchain().cuda_path is not None:    # (verify says which headers it parsed with)
        assert err.count(f"[{LEGACY_PARSE_ID}]") == 1, err


def test_a_chain_of_passes_says_the_toolkit_rejects_the_file_once(tmp_path, monkeypatch):
    real_toolkit()
    source, _ = _program(tmp_path)
    monkeypatch.chdir(source.parent)
    options = RunOptions(parse=ParseOptions(user_flags=("-I../common",)))
    chained = chain_passes(str(source), options, [("transfers", run_transfers),
                                                  ("fuse", run_fuse), ("mgpu", run_mgpu)])
    [said] = [d for d in chained.diagnostics if d.id == LEGACY_PARSE_ID]
    assert "clockRate" in said.message and said.location.line == 10
    plain = source.parent / "plain.cu"
    plain.write_text(CLOCK.replace("prop.clockRate, prop.deviceOverlap", "1, 2"))
    again = chain_passes(str(plain), options, [("transfers", run_transfers), ("mgpu", run_mgpu)])
    assert not any(d.id == LEGACY_PARSE_ID for d in again.diagnostics)


def test_rewritten_files_name_an_included_cu_file_not_a_created_table(tmp_path):
    included = tmp_path / "driver.cu"
    included.write_bytes(b"old text\n")
    generated = {"main.cu": ((str(included), b"new text\n"),
                             (str(tmp_path / "main.cu.s2s_mgpu.h"), b"table\n")),
                 "other.cu": ((str(included), b"new text\n"),)}
    assert rewritten_beside(generated) == (str(included),)
    assert rewritten_beside({"main.cu": ((str(included), b"old text\n"),)}) == ()
